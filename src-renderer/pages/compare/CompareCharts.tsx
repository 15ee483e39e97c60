import { useCallback, useMemo } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import { Chart, type ChartColors } from '../../components/Chart';
import { formatDuration, formatRate, formatUsd, formatUsdTicks } from '../../lib/format';
import { placeLabels } from '../../lib/label-placement';

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';
import { PHASE_FIELDS, type CompareRow } from './compare-model';

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
export function PhaseChart({ rows }: { rows: readonly CompareRow[] }) {
  const labels = useMemo(() => rows.map(runLabel), [rows]);
  const data = useMemo<AlignedData>(() => {
    const xs = rows.map((_r, i) => i);
    const cumulative = PHASE_FIELDS.map((_f, k) => rows.map((r) => PHASE_FIELDS.slice(0, k + 1).reduce((s, f) => s + (r[f] ?? 0), 0) / 1000));
    // Drawn in reverse phase order (teardown = the whole bar first).
    return [xs, ...cumulative.slice().reverse()];
  }, [rows]);
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
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
            label: 'Run',
            labelFont: AXIS_TITLE_FONT,
          },
          { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Duration', labelFont: AXIS_TITLE_FONT, size: 70, values: (_u, splits) => splits.map((v) => formatDuration(v * 1000)) },
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
    [rows, labels],
  );
  return <Chart build={build} data={data} height={240} label={`Phase durations per run: ${rows.map((r, i) => `${labels[i]} ${formatDuration(r.total_ms)}`).join(', ')}`} testId="chart-phases" />;
}

/** Cost per run against generation speed: the cheap and fast runs sit bottom right. */
export function CostSpeedChart({ rows }: { rows: readonly CompareRow[] }) {
  const points = useMemo(
    () =>
      rows
        .map((r, i) => ({ x: r.tokens_per_second, y: r.cost_usd, label: runLabel(r, i) }))
        .filter((p): p is { x: number; y: number; label: string } => p.x !== null && p.y !== null)
        .sort((a, b) => a.x - b.x),
    [rows],
  );
  const data = useMemo<AlignedData>(() => [points.map((p) => p.x), points.map((p) => p.y)], [points]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: {
        x: { time: false, range: (_u, min, max) => [Math.max(0, min - Math.max(1, (max - min) * 0.15)), max + Math.max(1, (max - min) * 0.15)] },
        y: { range: (_u, _min, max) => [0, Math.max(0.0001, max * 1.25)] },
      },
      axes: [
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Generation speed (tok/s)', labelFont: AXIS_TITLE_FONT, values: (_u, s) => s.map((v) => `${v}`) },
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Cost per run ($)', labelFont: AXIS_TITLE_FONT, size: 70, values: (_u, s) => formatUsdTicks(s) },
      ],
      legend: { show: false },
      series: [
        {},
        { label: 'Cost per run', stroke: c.accent, fill: c.accent, paths: () => null, points: { show: true, size: 10, stroke: c.accent, fill: c.accent } },
      ],
      // Each point is named by its run, so the chart reads without a legend.
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
            const h = Math.round(14 * dpr);
            const requests = points.map((p) => ({ px: u.valToPos(p.x, 'x', true), py: u.valToPos(p.y, 'y', true), w: ctx.measureText(p.label).width + 4 * dpr, h }));
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
              ctx.fillText(p.label, r.x + 2 * dpr, r.y + 1 * dpr);
            });
            ctx.restore();
          },
        ],
      },
    }),
    [points],
  );
  if (points.length === 0) return <p className="muted">No run has both a cost and a tokens/s figure.</p>;
  return (
    <Chart
      build={build}
      data={data}
      height={240}
      label={`Cost against tokens per second: ${points.map((p) => `${p.label} ${formatRate(p.x)} ${formatUsd(p.y)}`).join(', ')}`}
      testId="chart-cost-speed"
    />
  );
}
