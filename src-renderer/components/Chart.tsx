import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useResolvedTheme } from '../state/theme';

/** The theme's chart colours, read from the stylesheet's custom properties. */
export function chartColors(): { text: string; grid: string; accent: string; ok: string; warn: string; error: string; muted: string } {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    text: v('--text', '#1c2330'),
    muted: v('--muted', '#5d6877'),
    grid: v('--border', '#dde1e7'),
    accent: v('--accent', '#2a63c8'),
    ok: v('--ok', '#1d7a46'),
    warn: v('--warn', '#8a5a00'),
    error: v('--error', '#b3261e'),
  };
}

export type ChartColors = ReturnType<typeof chartColors>;

/**
 * uPlot (canvas, ~22 KB gzip) sized to its container. `build` makes the options from the theme's
 * colours; the chart is rebuilt when the theme or the options change and only gets `setData`
 * when just the data changes. The fixed height keeps the layout still while data arrives.
 */
export function Chart({
  build,
  data,
  height = 220,
  label,
  testId,
}: {
  build: (colors: ChartColors) => Omit<Options, 'width' | 'height'>;
  data: AlignedData;
  height?: number;
  /** Accessible description of what the chart shows. */
  label: string;
  testId?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const theme = useResolvedTheme();
  const dataRef = useRef(data);
  dataRef.current = data;

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    // Colours come from CSS variables that follow <html data-theme>; read them after it changed.
    const colors = chartColors();
    const opts: Options = { ...build(colors), width: Math.max(200, el.clientWidth), height };
    const chart = new uPlot(opts, dataRef.current, el);
    plot.current = chart;
    const ro = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [build, height, theme]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={host} className="chart" style={{ minHeight: height + 40 }} role="img" aria-label={label} data-testid={testId} />;
}
