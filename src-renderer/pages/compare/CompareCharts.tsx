import { useCallback, useMemo } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import { Chart, type ChartColors } from '../../components/Chart';
import { axisTicks, formatDuration, formatDurationTick, formatNumber, formatRate, formatUsd, formatUsdTicks } from '../../lib/format';
import { placeLabels } from '../../lib/label-placement';
import { PHASE_FIELDS, type CompareRow } from './compare-model';

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';

/** One stacked bar: a run, or a group's means. */
export type PhaseBar = { label: string; phases: readonly (number | null)[] };
/** One point of the cost/speed chart, with its spread when it stands for a group; `key` names it on the chart when set (the key below says what it is). */
export type CostSpeedPoint = { x: number; y: number; label: string; key?: string; xsd?: number; ysd?: number };

/** More bars than this are numbered on the axis, with a key below: long names never collide. */
const NAMED_BARS = 4;

/** The numbered names under a chart whose bars or points carry numbers. */
export function ChartKey({ labels }: { labels: readonly string[] }) {
  return (
    <ul className="chart-key" data-testid="chart-key">
      {labels.map((l) => (
        <li key={l}>{l}</li>
      ))}
    </ul>
  );
}

const PHASE_LABELS: Record<(typeof PHASE_FIELDS)[number], string> = {
  provision_ms: 'Provision',
  warmup_ms: 'Warm-up',
  analysis_ms: 'Analysis',
  teardown_ms: 'Teardown',
};

/** Short label of run i for axes: "#1 llama3.1:8b". */
export function runLabel(row: CompareRow, i: number): string {
  const model = row.model.length > 16 ? `${row.model.slice(0, 15)}…` : row.model;
  return `#${i + 1} ${model}`;
}

/**
 * Phase durations stacked per run. uPlot has no stacking: each series is drawn as a bar from 0 to
 * the cumulative sum up to its phase, the tallest (all phases) first, so each later, shorter bar
 * covers the bottom of the previous one and the visible bands are the phases.
 */
export function PhaseChart({ bars }: { bars: readonly PhaseBar[] }) {
  const labels = useMemo(() => bars.map((b) => b.label), [bars]);
  const rows = bars;
  const data = useMemo<AlignedData>(() => {
    const xs = bars.map((_b, i) => i);
    const cumulative = PHASE_FIELDS.map((_f, k) => bars.map((b) => b.phases.slice(0, k + 1).reduce<number>((s, v) => s + (v ?? 0), 0) / 1000));
    // Drawn in reverse phase order (teardown = the whole bar first).
    return [xs, ...cumulative.slice().reverse()];
  }, [bars]);
  // Many bars: numbered on the axis (the key below names them), readable at any count and width.
  const numbered = bars.length > NAMED_BARS;
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => {
      const fills = [c.muted, c.warn, c.accent, c.ok]; // provision, warmup, analysis, teardown
      const bars = uPlot.paths.bars?.({ size: [0.6, 72], align: 0 });
      const phases = PHASE_FIELDS.slice().reverse();
      return {
        scales: { x: { time: false, range: [-0.5, Math.max(0.5, rows.length - 0.5)] }, y: { range: (_u, _min, max) => [0, Math.max(0.01, max * 1.15)] } },
        axes: [
          {
            stroke: c.text,
            grid: { show: false },
            ticks: { stroke: c.grid },
            splits: () => rows.map((_r, i) => i),
            values: axisTicks((i) => (numbered ? String(i + 1) : (labels[i] ?? ''))),
            label: numbered ? 'Run or group (see the key)' : 'Run',
            labelFont: AXIS_TITLE_FONT,
          },
          { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Duration', labelFont: AXIS_TITLE_FONT, size: 70, values: axisTicks((v) => formatDurationTick(v * 1000)) },
        ],
        // A static chart: the legend names the phases (the table has the figures).
        legend: { show: true, live: false },
        series: [
          { label: 'Run' },
          ...phases.map((f) => ({
            label: PHASE_LABELS[f],
            fill: fills[PHASE_FIELDS.indexOf(f)] ?? c.accent,
            stroke: fills[PHASE_FIELDS.indexOf(f)] ?? c.accent,
            width: 0,
            ...(bars ? { paths: bars } : {}),
            points: { show: false },
          })),
        ],
      };
    },
    [rows, labels, numbered],
  );
  const total = (b: PhaseBar) => b.phases.reduce<number>((s, v) => s + (v ?? 0), 0);
  return (
    <>
      <Chart build={build} data={data} height={240} label={`Phase durations: ${bars.map((b) => `${b.label} ${formatDuration(total(b))}`).join(', ')}`} testId="chart-phases" />
      {numbered ? <ChartKey labels={labels} /> : null}
    </>
  );
}

/** Each run's bar: its four phases. */
export function runBars(rows: readonly CompareRow[]): PhaseBar[] {
  return rows.map((r, i) => ({ label: runLabel(r, i), phases: PHASE_FIELDS.map((f) => r[f]) }));
}

/** Each run as a point: its speed and its cost. */
export function runPoints(rows: readonly CompareRow[]): CostSpeedPoint[] {
  return rows
    .map((r, i) => ({ x: r.tokens_per_second, y: r.cost_usd, label: runLabel(r, i) }))
    .filter((p): p is { x: number; y: number; label: string } => p.x !== null && p.y !== null);
}

/** Cost per run against generation speed: the cheap and fast runs sit bottom right. */
export function CostSpeedChart({ points: given }: { points: readonly CostSpeedPoint[] }) {
  const points = useMemo(() => given.slice().sort((a, b) => a.x - b.x), [given]);
  const data = useMemo<AlignedData>(() => [points.map((p) => p.x), points.map((p) => p.y)], [points]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: {
        x: {
          time: false,
          range: (_u, min, max) => {
            const lo = Math.min(min, ...points.map((p) => p.x - (p.xsd ?? 0)));
            const hi = Math.max(max, ...points.map((p) => p.x + (p.xsd ?? 0)));
            const pad = Math.max(1, (hi - lo) * 0.15);
            return [Math.max(0, lo - pad), hi + pad];
          },
        },
        y: { range: (_u, _min, max) => [0, Math.max(0.0001, Math.max(max, ...points.map((p) => p.y + (p.ysd ?? 0))) * 1.25)] },
      },
      axes: [
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Generation speed (tok/s)', labelFont: AXIS_TITLE_FONT, values: axisTicks((v) => formatNumber(v, 1)) },
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Cost per run ($)', labelFont: AXIS_TITLE_FONT, size: 70, values: (_u, s) => formatUsdTicks(s.map((v) => (v === null ? Number.NaN : v))) },
      ],
      legend: { show: false },
      series: [
        {},
        { label: 'Cost per run', stroke: c.accent, fill: c.accent, paths: () => null, points: { show: true, size: 10, stroke: c.accent, fill: c.accent } },
      ],
      // Each point is named by its run, so the chart reads without a legend; labels never overlap
      // (placeLabels moves a crowded one aside with a leader line, or leaves it to the table).
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const dpr = devicePixelRatio;
            ctx.save();
            ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
            ctx.textBaseline = 'top';
            // uPlot leaves its axes' alignment on the context.
            ctx.textAlign = 'left';
            // A group's spread: ±1 standard deviation as whiskers on both axes.
            ctx.strokeStyle = c.muted;
            ctx.lineWidth = dpr;
            for (const p of points) {
              const cx = u.valToPos(p.x, 'x', true);
              const cy = u.valToPos(p.y, 'y', true);
              ctx.beginPath();
              if (p.xsd) {
                ctx.moveTo(u.valToPos(p.x - p.xsd, 'x', true), cy);
                ctx.lineTo(u.valToPos(p.x + p.xsd, 'x', true), cy);
              }
              if (p.ysd) {
                ctx.moveTo(cx, u.valToPos(p.y - p.ysd, 'y', true));
                ctx.lineTo(cx, u.valToPos(p.y + p.ysd, 'y', true));
              }
              ctx.stroke();
            }
            const h = Math.round(14 * dpr);
            const names = points.map((p) => p.key ?? p.label);
            const requests = points.map((p, i) => ({ px: u.valToPos(p.x, 'x', true), py: u.valToPos(p.y, 'y', true), w: ctx.measureText(names[i] ?? '').width + 4 * dpr, h }));
            const placed = placeLabels(requests, { x: u.bbox.left, y: u.bbox.top, w: u.bbox.width, h: u.bbox.height }, 5 * dpr, 3 * dpr);
            placed.forEach((r, i) => {
              const p = points[i];
              const q = requests[i];
              if (!r || !p || !q) return;
              if (r.leader) {
                ctx.strokeStyle = c.muted;
                ctx.lineWidth = dpr;
                ctx.beginPath();
                ctx.moveTo(q.px, q.py);
                ctx.lineTo(r.x < q.px ? r.x + r.w : r.x, r.y + r.h / 2);
                ctx.stroke();
              }
              ctx.fillStyle = c.text;
              ctx.fillText(names[i] ?? p.label, r.x + 2 * dpr, r.y + 1 * dpr);
            });
            ctx.restore();
          },
        ],
      },
    }),
    [points],
  );
  if (points.length === 0) return <p className="muted">No run has both a cost and a tokens/s figure.</p>;
  const spread = (v: number | undefined, fmt: (n: number) => string) => (v ? ` ± ${fmt(v)}` : '');
  const keyed = points.some((p) => p.key !== undefined);
  return (
    <>
      <Chart
        build={build}
        data={data}
        height={240}
        label={`Cost against tokens per second: ${points.map((p) => `${p.label} ${formatRate(p.x)}${spread(p.xsd, formatRate)} ${formatUsd(p.y)}${spread(p.ysd, formatUsd)}`).join(', ')}`}
        testId="chart-cost-speed"
      />
      {keyed ? <ChartKey labels={given.map((p) => p.label)} /> : null}
    </>
  );
}
