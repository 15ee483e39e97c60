import type { CSSProperties, ReactNode } from 'react';
import type { SweepCell, SweepRecord } from '../../../shared';
import { formatDph, formatPercent, formatRate, formatUsd } from '../../lib/format';
import { axesOf, heatOf, type HeatMetric } from './sweep-model';

const STATUS_TEXT: Record<SweepCell['status'], string> = {
  pending: 'waiting',
  running: 'running…',
  succeeded: 'done',
  failed: 'failed',
  skipped: 'skipped',
  cancelled: 'cancelled',
  budget_exceeded: 'spend limit',
};

function figure(cell: SweepCell, metric: HeatMetric): string {
  if (cell.status !== 'succeeded') return STATUS_TEXT[cell.status];
  if (metric === 'accuracy') return cell.accuracy !== undefined ? formatPercent(cell.accuracy) : 'no score';
  return cell.usd_per_million_output_tokens !== undefined ? `${formatUsd(cell.usd_per_million_output_tokens)} /1M` : 'no figure';
}

/** The $/h of the machine a cell runs on, and since when the cell has held it: its cost so far. */
export function cellMeter(sweep: SweepRecord, cell: SweepCell): { dph: number; since: string } | null {
  if (cell.status !== 'running' || !cell.started_at) return null;
  const machine = sweep.machines.find((m) => m.gpu === cell.gpu && m.status === 'running');
  return machine?.dph_total !== undefined ? { dph: machine.dph_total, since: cell.started_at } : null;
}

function subline(sweep: SweepRecord, cell: SweepCell, metric: HeatMetric): ReactNode {
  if (cell.status === 'succeeded') {
    if (metric === 'accuracy' && cell.cost_per_correct_usd !== undefined) return `${formatUsd(cell.cost_per_correct_usd)} / correct`;
    if (metric === 'usd_per_million' && cell.output_tokens_per_s !== undefined) return formatRate(cell.output_tokens_per_s);
    return formatUsd(cell.cost_usd);
  }
  // Its cost still grows: counted live once, in the sweep's spend, not in every cell.
  if (cell.status === 'running') return cellMeter(sweep, cell) ? `at ${formatDph(cellMeter(sweep, cell)?.dph)}` : 'on its machine';
  return cell.cost_usd > 0 ? formatUsd(cell.cost_usd) : '';
}

/**
 * The sweep as a heat map: a row per model, a column per GPU, each cell coloured by its figure
 * (accuracy, or $/1M output tokens: greener is better). Cells have a fixed size and their text a
 * fixed number of lines, so a cell changing status never moves the others. Each cell is a
 * button: Enter or a click shows its detail.
 */
export function SweepMatrix({ sweep, metric, selected, onSelect }: { sweep: SweepRecord; metric: HeatMetric; selected: number | null; onSelect: (index: number) => void }) {
  const { models, gpus } = axesOf(sweep);
  const heat = heatOf(sweep.cells, metric);
  return (
    <div className="sweep-matrix-scroll">
      <table className="sweep-matrix" data-testid="sweep-matrix" aria-label={`Matrix of ${models.length} models by ${gpus.length} GPUs, ${metric === 'accuracy' ? 'accuracy' : '$ per million output tokens'}`}>
        <thead>
          <tr>
            <th scope="col">Model</th>
            {gpus.map((g) => (
              <th key={g} scope="col">
                {g}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {models.map((model) => (
            <tr key={model}>
              <th scope="row">{model}</th>
              {gpus.map((gpu) => {
                const index = sweep.cells.findIndex((c) => c.model === model && c.gpu === gpu);
                const cell = sweep.cells[index];
                if (!cell) return <td key={gpu} />;
                const h = heat[index];
                const style = h === null || h === undefined ? undefined : ({ '--heat': `${Math.round(h * 100)}%` } as CSSProperties);
                return (
                  <td key={gpu}>
                    <button
                      type="button"
                      className={`sweep-cell status-${cell.status}${h !== null && h !== undefined ? ' heated' : ''}${selected === index ? ' selected' : ''}`}
                      style={style}
                      onClick={() => onSelect(index)}
                      aria-pressed={selected === index}
                      title={cell.reason}
                      data-testid={`sweep-cell-${index}`}
                      data-status={cell.status}
                    >
                      {/* The accessible name is what is shown, with the cell's model and GPU before it. */}
                      <span className="visually-hidden">
                        {model} on {gpu}:{' '}
                      </span>
                      <span className="sweep-cell-figure">{figure(cell, metric)}</span>
                      <span className="sweep-cell-sub">{subline(sweep, cell, metric)}</span>
                      {cell.reason ? <span className="visually-hidden">, {cell.reason}</span> : null}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
