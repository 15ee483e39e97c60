import type { ReportRow, SweepCell, SweepRecord, SweepReport } from '../../shared/sweeps';

/**
 * Ranking of a sweep's cells (design §14), pure. A suite sweep ranks by accuracy (higher first),
 * then cost per correct answer (lower first); a serving-only sweep by $ per million output tokens
 * (lower first), then throughput (higher first). Only finished cells with a score are ranked; the
 * others follow unranked in the report. The Pareto front is the cells no other cell beats on both
 * accuracy (higher) and cost (lower).
 */

export type RankedBy = 'accuracy' | 'serving';

export function rankedBy(request: { suite_id?: string | undefined }): RankedBy {
  return request.suite_id !== undefined ? 'accuracy' : 'serving';
}

/** null and undefined sort after every number (a cell without the figure is never "best" at it). */
function ascending(a: number | undefined, b: number | undefined): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a - b;
}

function scored(cell: SweepCell, by: RankedBy): boolean {
  if (cell.status !== 'succeeded') return false;
  return by === 'accuracy' ? cell.accuracy !== undefined : cell.usd_per_million_output_tokens !== undefined || cell.output_tokens_per_s !== undefined;
}

/** Indexes of the ranked cells, best first; ties keep the matrix order (model, then GPU). */
export function rankCells(cells: readonly SweepCell[], by: RankedBy): number[] {
  const indexes = cells.map((_, i) => i).filter((i) => scored(cells[i] as SweepCell, by));
  return indexes.sort((ia, ib) => {
    const a = cells[ia] as SweepCell;
    const b = cells[ib] as SweepCell;
    const order =
      by === 'accuracy'
        ? ascending(b.accuracy, a.accuracy) || ascending(a.cost_per_correct_usd, b.cost_per_correct_usd) || a.cost_usd - b.cost_usd
        : ascending(a.usd_per_million_output_tokens, b.usd_per_million_output_tokens) || ascending(b.output_tokens_per_s, a.output_tokens_per_s);
    return order || ia - ib;
  });
}

/** Cells with an accuracy that no other such cell dominates (≥ accuracy and ≤ cost, one of them strictly), cheapest first. */
export function paretoFront(cells: readonly SweepCell[]): number[] {
  const points = cells
    .map((cell, i) => ({ i, accuracy: cell.accuracy, cost: cell.cost_usd, ok: cell.status === 'succeeded' }))
    .filter((p): p is { i: number; accuracy: number; cost: number; ok: true } => p.ok && p.accuracy !== undefined);
  const front = points.filter((p) => !points.some((q) => q !== p && q.accuracy >= p.accuracy && q.cost <= p.cost && (q.accuracy > p.accuracy || q.cost < p.cost)));
  return front.sort((a, b) => a.cost - b.cost || b.accuracy - a.accuracy || a.i - b.i).map((p) => p.i);
}

/** Every tag any scored cell has, with each cell's accuracy on it. */
function tagTable(cells: readonly SweepCell[]): SweepReport['tags'] {
  const tags = new Map<string, SweepReport['tags'][number]['cells']>();
  cells.forEach((cell, i) => {
    if (cell.status !== 'succeeded' || !cell.tags) return;
    for (const [tag, figures] of Object.entries(cell.tags)) {
      const list = tags.get(tag) ?? [];
      list.push({ cell: i, model: cell.model, gpu: cell.gpu, passed: figures.passed, total: figures.total, accuracy: figures.accuracy });
      tags.set(tag, list);
    }
  });
  return [...tags.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([tag, list]) => ({ tag, cells: list }));
}

/** The report of a sweep as it stands: ranked rows first, then the unranked cells in matrix order. */
export function buildReport(sweep: SweepRecord): SweepReport {
  const by = rankedBy(sweep.request);
  const ranking = rankCells(sweep.cells, by);
  const pareto = paretoFront(sweep.cells);
  const onFront = new Set(pareto);
  const rest = sweep.cells.map((_, i) => i).filter((i) => !ranking.includes(i));
  const row = (i: number, rank: number | null): ReportRow => {
    const c = sweep.cells[i] as SweepCell;
    return {
      rank,
      cell: i,
      model: c.model,
      gpu: c.gpu,
      status: c.status,
      reason: c.reason ?? null,
      accuracy: c.accuracy ?? null,
      passed: c.passed ?? null,
      total: c.total ?? null,
      cost_usd: c.cost_usd,
      cost_per_correct_usd: c.cost_per_correct_usd ?? null,
      output_tokens_per_s: c.output_tokens_per_s ?? null,
      ttft_p50_ms: c.ttft_p50_ms ?? null,
      usd_per_million_output_tokens: c.usd_per_million_output_tokens ?? null,
      pareto: onFront.has(i),
    };
  };
  return {
    sweep_id: sweep.sweep_id,
    name: sweep.name,
    status: sweep.status,
    ranked_by: by,
    spend_usd: sweep.spend_usd,
    max_total_cost_usd: sweep.max_total_cost_usd,
    as_of: sweep.updated_at,
    rows: [...ranking.map((i, n) => row(i, n + 1)), ...rest.map((i) => row(i, null))],
    tags: tagTable(sweep.cells),
    pareto: pareto.map((i) => {
      const c = sweep.cells[i] as SweepCell;
      return { cell: i, model: c.model, gpu: c.gpu, accuracy: c.accuracy ?? 0, cost_usd: c.cost_usd };
    }),
  };
}
