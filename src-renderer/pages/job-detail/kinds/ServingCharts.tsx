import { useCallback, useMemo } from 'react';
import type { AlignedData, Options } from 'uplot';
import { Chart, type ChartColors } from '../../../components/Chart';
import { axisTicks, formatMs, formatNumber, formatRate } from '../../../lib/format';
import type { ServingRow } from './serving-model';

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';

/** Concurrency on a log₂ axis (levels usually double), every level a tick. */
function concurrencyAxis(c: ChartColors, levels: readonly number[]) {
  return {
    stroke: c.text,
    grid: { stroke: c.grid },
    ticks: { stroke: c.grid },
    label: 'Concurrency (requests in flight)',
    labelFont: AXIS_TITLE_FONT,
    splits: () => [...levels],
    values: axisTicks(String),
  };
}

function xScale(levels: readonly number[]) {
  const lo = Math.min(...levels);
  const hi = Math.max(...levels);
  // A little room either side so the end points are not cut by the frame.
  return { time: false, distr: 3 as const, log: 2 as const, range: (): [number, number] => [lo / 1.25, hi * 1.25] };
}

/** null where a level has no figure (not run yet, or every request failed): uPlot leaves a gap, the axes stay as they are. */
const data = (rows: readonly ServingRow[], ...pick: ((r: ServingRow) => number | null)[]): AlignedData => [
  rows.map((r) => r.concurrency),
  ...pick.map((p) => rows.map((r) => (r.state === 'done' ? p(r) : null))),
];

export function ThroughputChart({ rows }: { rows: readonly ServingRow[] }) {
  // Keyed by the levels' text: the chart is rebuilt only when the levels change, never while a run streams in.
  const key = rows.map((r) => r.concurrency).join(',');
  const levels = useMemo(() => key.split(',').map(Number), [key]);
  const series = useMemo(() => data(rows, (r) => r.outputTokensPerS), [rows]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: { x: xScale(levels), y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] } },
      axes: [
        concurrencyAxis(c, levels),
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Output tokens/s', labelFont: AXIS_TITLE_FONT, size: 70, values: axisTicks((v) => formatNumber(v, 1)) },
      ],
      legend: { show: false },
      series: [{ label: 'Concurrency' }, { label: 'Output tokens/s', stroke: c.accent, width: 2, points: { show: true, size: 8, stroke: c.accent, fill: c.accent }, spanGaps: false }],
    }),
    [levels],
  );
  const label = `Output tokens per second against concurrency: ${rows.map((r) => `${r.concurrency} → ${formatRate(r.outputTokensPerS)}`).join(', ')}`;
  return <Chart build={build} data={series} height={220} label={label} testId="chart-serving-throughput" />;
}

export function TtftChart({ rows }: { rows: readonly ServingRow[] }) {
  // Keyed by the levels' text: the chart is rebuilt only when the levels change, never while a run streams in.
  const key = rows.map((r) => r.concurrency).join(',');
  const levels = useMemo(() => key.split(',').map(Number), [key]);
  const series = useMemo(() => data(rows, (r) => r.ttftP50, (r) => r.ttftP99), [rows]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: { x: xScale(levels), y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] } },
      axes: [
        concurrencyAxis(c, levels),
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Time to first token', labelFont: AXIS_TITLE_FONT, size: 80, values: axisTicks(formatMs) },
      ],
      legend: { show: true, live: false },
      series: [
        { label: 'Concurrency' },
        { label: 'TTFT p50', stroke: c.accent, width: 2, points: { show: true, size: 8, stroke: c.accent, fill: c.accent } },
        { label: 'TTFT p99', stroke: c.warn, width: 2, dash: [6, 4], points: { show: true, size: 8, stroke: c.warn, fill: c.warn } },
      ],
    }),
    [levels],
  );
  const label = `Time to first token against concurrency, p50 and p99: ${rows.map((r) => `${r.concurrency} → ${formatMs(r.ttftP50)} / ${formatMs(r.ttftP99)}`).join(', ')}`;
  return <Chart build={build} data={series} height={220} label={label} testId="chart-serving-ttft" />;
}
