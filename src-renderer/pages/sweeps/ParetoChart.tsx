import { useCallback, useMemo } from 'react';
import type { AlignedData, Options } from 'uplot';
import type { SweepReport } from '../../../shared';
import { Chart, type ChartColors } from '../../components/Chart';
import { formatPercent, formatUsd } from '../../lib/format';

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';

/** Axis ticks keep two significant digits however small the amounts (a short test sweep costs fractions of a cent). */
function axisUsd(v: number): string {
  if (v === 0) return '$0';
  return Math.abs(v) < 0.01 ? `$${Number(v.toPrecision(2))}` : formatUsd(v);
}

/**
 * Accuracy against the suite's cost, one point per scored cell with its 95% interval as an error
 * bar; the Pareto front (cells with a correct answer that no other beats on both) joined by a
 * line. Each point of the front is named by its model and GPU.
 */
export function ParetoChart({ report }: { report: SweepReport }) {
  const points = useMemo(
    () =>
      report.rows
        .filter((r) => r.accuracy !== null && r.status === 'succeeded')
        .map((r) => ({
          // The suite's own cost: what the front is drawn against.
          x: r.suite_cost_usd ?? r.cost_usd,
          y: r.accuracy as number,
          lo: r.accuracy_ci95?.[0] ?? (r.accuracy as number),
          hi: r.accuracy_ci95?.[1] ?? (r.accuracy as number),
          front: r.pareto,
          label: `${r.model} @ ${r.gpu}`,
        }))
        .sort((a, b) => a.x - b.x || a.y - b.y),
    [report],
  );
  // uPlot wants one x array: the front is a second series, null off the front.
  const data = useMemo<AlignedData>(() => [points.map((p) => p.x), points.map((p) => p.y), points.map((p) => (p.front ? p.y : null))], [points]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: {
        // One cost for every cell (or none yet): a range around it, not uPlot's default span.
        x: { time: false, range: (_u, min, max) => (max - min < 1e-9 ? [0, Math.max(0.0001, max * 2)] : [Math.max(0, min - Math.max(0.0001, (max - min) * 0.15)), max + Math.max(0.0001, (max - min) * 0.2)]) },
        y: { range: () => [0, 1.05] },
      },
      axes: [
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, space: 90, label: 'Cost of the suite ($)', labelFont: AXIS_TITLE_FONT, values: (_u, s) => s.map(axisUsd) },
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Accuracy', labelFont: AXIS_TITLE_FONT, size: 56, values: (_u, s) => s.map((v) => formatPercent(v)) },
      ],
      legend: { show: true, live: false },
      series: [
        {},
        { label: 'Cell', stroke: c.muted, fill: c.muted, paths: () => null, points: { show: true, size: 8, stroke: c.muted, fill: c.muted } },
        { label: 'Pareto front', stroke: c.ok, width: 2, spanGaps: true, points: { show: true, size: 11, stroke: c.ok, fill: c.ok } },
      ],
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const dpr = devicePixelRatio;
            ctx.save();
            ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
            ctx.fillStyle = c.text;
            // Each cell's 95% interval: a vertical bar with caps.
            ctx.strokeStyle = c.muted;
            ctx.lineWidth = Math.max(1, dpr);
            for (const p of points) {
              const x = u.valToPos(p.x, 'x', true);
              const top = u.valToPos(p.hi, 'y', true);
              const bottom = u.valToPos(p.lo, 'y', true);
              ctx.beginPath();
              ctx.moveTo(x, top);
              ctx.lineTo(x, bottom);
              ctx.moveTo(x - 4 * dpr, top);
              ctx.lineTo(x + 4 * dpr, top);
              ctx.moveTo(x - 4 * dpr, bottom);
              ctx.lineTo(x + 4 * dpr, bottom);
              ctx.stroke();
            }
            ctx.textAlign = 'left';
            ctx.textBaseline = 'bottom';
            // Only the front is named (the table below has every cell); cells at the same point share one label.
            const named = new Map<string, { x: number; y: number; labels: string[] }>();
            for (const p of points) {
              if (!p.front) continue;
              const key = `${p.x}|${p.y}`;
              const at = named.get(key) ?? { x: p.x, y: p.y, labels: [] };
              at.labels.push(p.label);
              named.set(key, at);
            }
            for (const p of named.values()) ctx.fillText(p.labels.join(' · '), u.valToPos(p.x, 'x', true) + 7 * dpr, u.valToPos(p.y, 'y', true) - 3 * dpr);
            ctx.restore();
          },
        ],
      },
    }),
    [points],
  );
  // As tall as the chart (260 px and its legend): the panel does not grow when the first cell is scored.
  if (points.length === 0) return <p className="muted sweep-chart-empty">No cell has an accuracy yet: the chart appears with the first scored cell.</p>;
  return (
    <Chart
      build={build}
      data={data}
      height={260}
      label={`Accuracy against the suite's cost: ${points.map((p) => `${p.label} ${formatPercent(p.y)} (95% interval ${formatPercent(p.lo)} to ${formatPercent(p.hi)}) for ${formatUsd(p.x)}${p.front ? ' (Pareto front)' : ''}`).join(', ')}`}
      testId="sweep-pareto"
    />
  );
}
