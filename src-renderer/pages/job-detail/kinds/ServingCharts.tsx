import { useCallback, useMemo } from 'react';
import type { AlignedData, Options, Series } from 'uplot';
import { Chart, type ChartColors } from '../../../components/Chart';
import { axisTicks, formatMs, formatRate, formatReqRate } from '../../../lib/format';
import type { ServingRow } from './serving-model';

/**
 * The serving job page's charts, every one against the levels (concurrency, or request rate): output
 * tokens/s, goodput beside the request rate, and TTFT and TPOT (p50, p99) with the SLO's bound and,
 * for TTFT, the network's round trip drawn across them. Each chart is built once per set of levels
 * (keyed by their text) and only its data changes while a run streams in.
 */

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';

type Line = { label: string; pick: (r: ServingRow) => number | null; color: (c: ChartColors) => string; dash?: number[]; points?: boolean };
type ChartSpec = { yLabel: string; yValue: (v: number) => string; lines: readonly Line[]; testId: string; describe: (r: ServingRow) => string; title: string };

/** Levels on a log₂ axis (they usually double), every level a tick with its label. */
function levelAxis(c: ChartColors, rows: readonly { x: number; label: string }[], rate: boolean) {
  return {
    stroke: c.text,
    grid: { stroke: c.grid },
    ticks: { stroke: c.grid },
    label: rate ? 'Request rate (requests started per second)' : 'Concurrency (requests in flight)',
    labelFont: AXIS_TITLE_FONT,
    splits: () => rows.map((r) => r.x),
    values: axisTicks((v) => rows.find((r) => r.x === v)?.label.replace(' req/s', '') ?? String(v)),
  };
}

function xScale(rows: readonly { x: number }[]) {
  const xs = rows.map((r) => r.x);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  // A little room either side so the end points are not cut by the frame.
  return { time: false, distr: 3 as const, log: 2 as const, range: (): [number, number] => [lo / 1.25, hi * 1.25] };
}

function LevelChart({ rows, rate, spec }: { rows: readonly ServingRow[]; rate: boolean; spec: ChartSpec }) {
  // Keyed by the levels' text: the chart is rebuilt only when the levels change, never while figures stream in.
  const key = rows.map((r) => `${r.x}\t${r.label}`).join('\n');
  const frame = useMemo(() => key.split('\n').map((line) => ({ x: Number(line.split('\t')[0]), label: line.split('\t')[1] ?? '' })), [key]);
  // null where a level has no figure (not run yet, or every request failed): uPlot leaves a gap, the axes stay as they are.
  const series = useMemo((): AlignedData => [rows.map((r) => r.x), ...spec.lines.map((l) => rows.map((r) => (r.state === 'done' ? l.pick(r) : null)))], [rows, spec.lines]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: { x: xScale(frame), y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] } },
      axes: [levelAxis(c, frame, rate), { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: spec.yLabel, labelFont: AXIS_TITLE_FONT, size: 80, values: axisTicks(spec.yValue) }],
      legend: { show: spec.lines.length > 1, live: false },
      series: [
        { label: rate ? 'Request rate' : 'Concurrency' },
        ...spec.lines.map((l): Series => {
          const color = l.color(c);
          return { label: l.label, stroke: color, width: 2, ...(l.dash ? { dash: l.dash } : {}), points: { show: l.points !== false, size: 8, stroke: color, fill: color }, spanGaps: l.points === false };
        }),
      ],
    }),
    [frame, rate, spec],
  );
  return <Chart build={build} data={series} height={220} label={`${spec.title}: ${rows.map(spec.describe).join(', ')}`} testId={spec.testId} />;
}

export function ThroughputChart({ rows, rate }: { rows: readonly ServingRow[]; rate: boolean }) {
  const spec = useMemo<ChartSpec>(
    () => ({
      title: `Output tokens per second against ${rate ? 'request rate' : 'concurrency'}`,
      yLabel: 'Output tokens/s',
      yValue: (v) => `${v}`,
      lines: [{ label: 'Output tokens/s', pick: (r) => r.outputTokensPerS, color: (c) => c.accent }],
      testId: 'chart-serving-throughput',
      describe: (r) => `${r.label} → ${formatRate(r.outputTokensPerS)}`,
    }),
    [rate],
  );
  return <LevelChart rows={rows} rate={rate} spec={spec} />;
}

/** Requests/s and goodput (requests/s meeting every SLO): where they part, the server is past what the SLO allows. */
export function GoodputChart({ rows, rate, slo }: { rows: readonly ServingRow[]; rate: boolean; slo: boolean }) {
  const spec = useMemo<ChartSpec>(
    () => ({
      title: `${slo ? 'Goodput and request throughput' : 'Request throughput'} against ${rate ? 'request rate' : 'concurrency'}`,
      yLabel: 'Requests/s',
      yValue: (v) => `${v}`,
      lines: [
        { label: 'Requests/s', pick: (r) => r.requestThroughput, color: (c) => (slo ? c.muted : c.accent) },
        ...(slo ? [{ label: 'Goodput (within the SLO)', pick: (r: ServingRow) => r.goodput, color: (c: ChartColors) => c.ok }] : []),
      ],
      testId: 'chart-serving-goodput',
      describe: (r) => (slo ? `${r.label} → ${formatReqRate(r.goodput)} of ${formatReqRate(r.requestThroughput)}` : `${r.label} → ${formatReqRate(r.requestThroughput)}`),
    }),
    [rate, slo],
  );
  return <LevelChart rows={rows} rate={rate} spec={spec} />;
}

/** A latency's p50 and p99, its SLO bound and (for TTFT) the network's round trip as flat lines. */
export function LatencyChart({ rows, rate, which, slo, rttMs }: { rows: readonly ServingRow[]; rate: boolean; which: 'ttft' | 'tpot'; slo: number | null; rttMs: number | null }) {
  const spec = useMemo<ChartSpec>(() => {
    const name = which === 'ttft' ? 'TTFT' : 'TPOT';
    const p50 = (r: ServingRow) => (which === 'ttft' ? r.ttftP50 : r.tpotP50);
    const p99 = (r: ServingRow) => (which === 'ttft' ? r.ttftP99 : r.tpotP99);
    const lines: Line[] = [
      { label: `${name} p50`, pick: p50, color: (c) => c.accent },
      { label: `${name} p99`, pick: p99, color: (c) => c.warn, dash: [6, 4] },
    ];
    if (slo !== null) lines.push({ label: `SLO ${formatMs(slo)}`, pick: () => slo, color: (c) => c.error, dash: [2, 3], points: false });
    if (rttMs !== null && which === 'ttft') lines.push({ label: `network RTT ${formatMs(rttMs)}`, pick: () => rttMs, color: (c) => c.muted, dash: [1, 3], points: false });
    return {
      title: `${which === 'ttft' ? 'Time to first token' : 'Time per output token'} against ${rate ? 'request rate' : 'concurrency'}, p50 and p99${slo !== null ? `, SLO ${formatMs(slo)}` : ''}`,
      yLabel: which === 'ttft' ? 'Time to first token' : 'Time per output token',
      yValue: (v) => formatMs(v),
      lines,
      testId: `chart-serving-${which}`,
      describe: (r) => `${r.label} → ${formatMs(p50(r))} / ${formatMs(p99(r))}`,
    };
  }, [rate, which, slo, rttMs]);
  return <LevelChart rows={rows} rate={rate} spec={spec} />;
}
