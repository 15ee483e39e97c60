import type { SweepCell, SweepRecord } from '../../shared';

/**
 * The sweep's matrix as text (pure): a row per model, a column per GPU, each cell its status or
 * its figure (accuracy for a suite sweep, $/1M output tokens for a serving one), then the spend.
 * The same width whatever the cells hold, so a terminal redraw never jumps.
 */

const CELL_WIDTH = 14;

function pad(text: string, width: number): string {
  const clipped = text.length > width ? `${text.slice(0, width - 1)}…` : text;
  return clipped.padEnd(width);
}

export function cellText(cell: SweepCell, servingOnly: boolean): string {
  switch (cell.status) {
    case 'succeeded':
      if (!servingOnly && cell.accuracy !== undefined) return `${(cell.accuracy * 100).toFixed(0)}% $${cell.cost_usd.toFixed(3)}`;
      if (cell.usd_per_million_output_tokens !== undefined) return `$${cell.usd_per_million_output_tokens.toFixed(2)}/1M`;
      return 'done';
    case 'running':
      return '… running';
    case 'pending':
      return '· pending';
    case 'budget_exceeded':
      return '$ limit';
    default:
      return cell.status;
  }
}

export function matrixLines(sweep: SweepRecord): string[] {
  const models = [...new Set(sweep.cells.map((c) => c.model))];
  const gpus = [...new Set(sweep.cells.map((c) => c.gpu))];
  const servingOnly = sweep.request.suite_id === undefined;
  const modelWidth = Math.min(28, Math.max(5, ...models.map((m) => m.length)) + 2);
  const lines = [pad('model', modelWidth) + gpus.map((g) => pad(g, CELL_WIDTH)).join(' ')];
  for (const model of models) {
    const row = gpus.map((gpu) => {
      const cell = sweep.cells.find((c) => c.model === model && c.gpu === gpu);
      return pad(cell ? cellText(cell, servingOnly) : '', CELL_WIDTH);
    });
    lines.push(pad(model, modelWidth) + row.join(' '));
  }
  const done = sweep.cells.filter((c) => c.status !== 'pending' && c.status !== 'running').length;
  const held = sweep.machines.filter((m) => m.status === 'running').length;
  lines.push(`${sweep.status}: ${done}/${sweep.cells.length} cells · spent $${sweep.spend_usd.toFixed(4)} of $${sweep.max_total_cost_usd} · ${held} machine${held === 1 ? '' : 's'} held`);
  return lines;
}
