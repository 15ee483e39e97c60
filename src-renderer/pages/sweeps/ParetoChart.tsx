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
 * Accuracy against cost, one point per scored cell; the Pareto front (no other cell is both more
 * accurate and cheaper) joined by a line. Each point is named by its model and GPU.
 */
export function ParetoChart({ report }: { report: SweepReport }) {
  const points = useMemo(
    () =>
      report.rows
        .filter((r) => r.accuracy !== null && r.status === 'succeeded')
        .map((r) => ({ x: r.cost_usd, y: r.accuracy as number, front: r.pareto, label: `${r.model} @ ${r.gpu}` }))
        .sort((a, b) => a.x - b.x || a.y - b.y),
    [report],
  );
  // uPlot wants one x array: the front is a second series, null off the front.
  const data = useMemo<AlignedData>(() => [points.map((p) => p.x), points.map((p) => p.y), points.map((p) => (p.front ? p.y : null))], [points]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      scales: {
        x: { time: false, range: (_u, min, max) => [Math.max(0, min - Math.max(0.0001, (max - min) * 0.15)), max + Math.max(0.0001, (max - min) * 0.2)] },
        y: { range: () => [0, 1.05] },
      },
      axes: [
        { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, space: 90, label: 'Cost of the cell ($)', labelFont: AXIS_TITLE_FONT, values: (_u, s) => s.map(axisUsd) },
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
            ctx.textAlign = 'left';
            ctx.textBaseline = 'bottom';
            // Only the front is named: the table below has every cell.
            for (const p of points) {
              if (!p.front) continue;
              ctx.fillText(p.label, u.valToPos(p.x, 'x', true) + 7 * dpr, u.valToPos(p.y, 'y', true) - 3 * dpr);
            }
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
      label={`Accuracy against cost: ${points.map((p) => `${p.label} ${formatPercent(p.y)} for ${formatUsd(p.x)}${p.front ? ' (Pareto front)' : ''}`).join(', ')}`}
      testId="sweep-pareto"
    />
  );
}
