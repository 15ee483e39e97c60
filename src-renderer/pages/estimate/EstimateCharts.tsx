import { useCallback, useMemo } from 'react';
import type uPlot from 'uplot';
import type { AlignedData, Options } from 'uplot';
import type { CostEstimationResponse, OfferSummary } from '../../../shared';
import { Chart, type ChartColors } from '../../components/Chart';
import { attachTooltip, seriesColor } from '../../components/chart-tooltip';
import { axisTicks, formatDph, formatGb, formatGpus, formatHours, formatMb, formatPercent, formatUsd, formatUsdTicks } from '../../lib/format';

/** Axes with their titles drawn beside them (never in the legend). */
function axes(c: ChartColors, xTitle: string, yTitle: string, xValues: (v: number) => string, yValues: (vals: number[]) => string[]): Options['axes'] {
  const base = { stroke: c.muted, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, font: '12px system-ui, sans-serif', labelFont: '600 12px system-ui, sans-serif', labelGap: 4 };
  return [
    { ...base, label: xTitle, labelSize: 22, values: axisTicks(xValues) },
    { ...base, label: yTitle, labelSize: 22, size: 64, values: (_u: unknown, vals: (number | null)[]) => yValues(vals.map((v) => (v === null ? Number.NaN : v))) },
  ];
}

/** Hour ticks a person would pick: every 15 or 30 min, or 1, 2, 3, 6, 12… h; at most about six. */
export function hourTicks(maxH: number): number[] {
  const step = [0.25, 0.5, 1, 2, 3, 4, 6, 12, 24, 48, 96].find((s) => maxH / s < 6) ?? Math.ceil(maxH / 6);
  const ticks: number[] = [];
  for (let t = 0; t <= maxH + 1e-9; t += step) ticks.push(Math.round(t * 100) / 100);
  return ticks;
}

/**
 * The memory axis: a real range even when every offer has the same memory (all 24 GB: 12–36 GB,
 * not six ticks of "24 GB"), padded so the outermost points are drawn whole.
 */
export function memoryRange(min: number, max: number): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const pad = max - min < 1e-9 ? Math.max(4, min * 0.5) : (max - min) * 0.1;
  return [Math.max(0, min - pad), max + pad];
}

/** Total GPU memory of an offer in GB. */
function totalVramGb(o: OfferSummary): number {
  return (o.gpu_ram * o.num_gpus) / 1024;
}

/**
 * Offer prices against the GPU memory they bring, one colour per GPU model (the legend names them,
 * hovering a point names its machine): where the cheap VRAM is. The cheapest fitting offer is ringed.
 */
export function OfferPriceChart({ offers, cheapestId }: { offers: readonly OfferSummary[]; cheapestId: number | null }) {
  const { data, models, sorted } = useMemo(() => {
    const sorted = [...offers].sort((a, b) => totalVramGb(a) - totalVramGb(b) || a.dph_total - b.dph_total);
    // Models by their cheapest offer, so the legend reads from the best deal.
    const models = [...new Set([...offers].sort((a, b) => a.dph_total - b.dph_total).map((o) => o.gpu_name))];
    const x = sorted.map(totalVramGb);
    const perModel = models.map((m) => sorted.map((o) => (o.gpu_name === m ? o.dph_total : null)));
    const cheapest = sorted.map((o) => (o.id === cheapestId ? o.dph_total : null));
    return { data: [x, ...perModel, cheapest] as AlignedData, models, sorted };
  }, [offers, cheapestId]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: (_u, min, max) => memoryRange(min, max) }, y: { range: (_u, min, max) => [Math.max(0, min - (max - min) * 0.1 - 0.01), max + (max - min) * 0.1 + 0.01] } },
      legend: { show: true, live: false },
      series: [
        { label: 'Total GPU memory' },
        ...models.map((m, i) => {
          const color = seriesColor(i);
          return { label: m, stroke: color, fill: color, paths: () => null, points: { show: true, size: 8, width: 1, fill: color, stroke: color } };
        }),
        { label: 'Cheapest that fits', stroke: c.text, paths: () => null, points: { show: true, size: 16, width: 2, fill: 'transparent', stroke: c.text } },
      ],
      axes: axes(c, 'Total GPU memory (GB)', 'Price ($/h)', (v) => formatGb(v), formatUsdTicks),
      hooks: {
        init: [
          (u: uPlot) =>
            attachTooltip(u, () =>
              sorted.map((o, i) => ({
                x: u.valToPos(totalVramGb(o), 'x'),
                y: u.valToPos(o.dph_total, 'y'),
                // Hidden models (toggled off in the legend) are not hovered.
                shown: u.series[models.indexOf(o.gpu_name) + 1]?.show !== false,
                html: `<strong>${escapeHtml(formatGpus(o.num_gpus, o.gpu_name))}</strong>${o.id === cheapestId ? ' · cheapest' : ''}<br>${formatDph(o.dph_total)} · ${formatMb(o.gpu_ram)} each<br>reliability ${formatPercent(o.reliability)}${o.geolocation ? ` · ${escapeHtml(o.geolocation)}` : ''}`,
                key: i,
              })),
            ),
        ],
      },
    }),
    [models, sorted, cheapestId],
  );
  return <Chart build={build} data={data} height={240} label={`Price in dollars per hour of ${offers.length} offers against their total GPU memory, by GPU model: ${models.join(', ')}`} testId="chart-offers" />;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Cost against duration: low, expected and high, with the band between low and high shaded. */
export function CostDurationChart({ estimate }: { estimate: CostEstimationResponse }) {
  const { data, lowIsExpected } = useMemo(() => {
    const hours = estimate.hours > 0 ? estimate.hours : 1;
    const perHour = {
      low: estimate.cost_range_usd.low / hours,
      expected: estimate.cost_range_usd.expected / hours,
      high: estimate.cost_range_usd.high / hours,
    };
    const maxH = Math.max(2, hours * 2);
    const steps = 24;
    const x = Array.from({ length: steps + 1 }, (_, i) => (maxH * i) / steps);
    return {
      data: [x, x.map((h) => perHour.high * h), x.map((h) => perHour.expected * h), x.map((h) => perHour.low * h)] as AlignedData,
      lowIsExpected: Math.abs(perHour.low - perHour.expected) < 1e-9,
    };
  }, [estimate]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(0.01, max * 1.08)] } },
      series: [
        { label: 'Duration', value: (_u, v) => (v == null ? '' : formatHours(v)) },
        { label: 'High', stroke: c.error, width: 2, dash: [6, 4], points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
        { label: 'Expected', stroke: c.accent, width: 3, points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
        // Drawn last, dashed over the expected line: visible even where the two are the same.
        { label: lowIsExpected ? 'Low (= expected)' : 'Low', stroke: c.ok, width: 2, dash: [3, 5], points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
      ],
      bands: [{ series: [1, 3], fill: `${c.accent}22` }],
      axes: (() => {
        const a = axes(c, 'Duration', 'Cost ($)', (v) => (v === 0 ? '0' : formatHours(v)), formatUsdTicks) ?? [];
        return [{ ...a[0], splits: (u: uPlot) => hourTicks(u.scales.x?.max ?? 2) }, a[1] ?? {}];
      })(),
    }),
    [lowIsExpected],
  );
  return <Chart build={build} data={data} height={240} label="Cost in dollars against run duration in hours: low, expected and high" testId="chart-cost-duration" />;
}
