import { intervalsOverlap, wilsonInterval } from '../../shared/stats';
import type { Manifest } from '../../shared/manifest';
import type { ReportRow, SweepCell, SweepConstraints, SweepRecord, SweepReport } from '../../shared/sweeps';
import { buildManifest } from '../manifest/manifest';

/**
 * Ranking of a sweep's cells (design §14, §12b), pure. A suite sweep ranks honestly: cells whose
 * 95% accuracy intervals overlap the tier leader's share its `rank_tier` (8/10 and 9/10 are a
 * tie on ten scenarios), and within a tier the cheaper correct answer comes first. A serving-only
 * sweep ranks by $ per million output tokens (lower first), then throughput; equal figures share a
 * tier. Only finished cells with a score are ranked. The Pareto front is the cells with at least
 * one correct answer that no other beats on both accuracy and the suite's cost.
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

/** A cell's 95% interval: its own, else from its counts, else the point itself. */
export function intervalOf(cell: SweepCell): [number, number] {
  const [lo, hi] = cell.accuracy_ci95 ?? [];
  if (lo !== undefined && hi !== undefined) return [lo, hi];
  if (cell.passed !== undefined && cell.total !== undefined) return wilsonInterval(cell.passed, cell.total - (cell.errors ?? 0));
  return [cell.accuracy ?? 0, cell.accuracy ?? 0];
}

/** Each ranked cell's tier, by index. */
function tiers(cells: readonly SweepCell[], indexes: readonly number[], by: RankedBy): Map<number, number> {
  const tier = new Map<number, number>();
  const at = (i: number) => cells[i] as SweepCell;
  if (by === 'serving') {
    let current = 0;
    let last: string | null = null;
    for (const i of indexes) {
      const key = `${at(i).usd_per_million_output_tokens ?? ''}|${at(i).output_tokens_per_s ?? ''}`;
      if (key !== last) current++;
      last = key;
      tier.set(i, current);
    }
    return tier;
  }
  const byAccuracy = [...indexes].sort((a, b) => ascending(at(b).accuracy, at(a).accuracy) || a - b);
  let current = 0;
  for (const leader of byAccuracy) {
    if (tier.has(leader)) continue;
    current++;
    const lead = intervalOf(at(leader));
    for (const i of byAccuracy) if (!tier.has(i) && intervalsOverlap(lead, intervalOf(at(i)))) tier.set(i, current);
  }
  return tier;
}

/** The ranked cells, best first, each with its tier; ties keep the matrix order (model, then GPU). */
export function rankWithTiers(cells: readonly SweepCell[], by: RankedBy): { ranking: number[]; tier: Map<number, number> } {
  const indexes = cells.map((_, i) => i).filter((i) => scored(cells[i] as SweepCell, by));
  const at = (i: number) => cells[i] as SweepCell;
  const order = (a: number, b: number) =>
    by === 'accuracy'
      ? ascending(at(b).accuracy, at(a).accuracy) || ascending(at(a).cost_per_correct_usd, at(b).cost_per_correct_usd) || at(a).cost_usd - at(b).cost_usd
      : ascending(at(a).usd_per_million_output_tokens, at(b).usd_per_million_output_tokens) || ascending(at(b).output_tokens_per_s, at(a).output_tokens_per_s);
  const sorted = [...indexes].sort((a, b) => order(a, b) || a - b);
  const tier = tiers(cells, sorted, by);
  // Within a tier the accuracies are statistically tied: the cheaper correct answer comes first.
  const ranking = [...sorted].sort(
    (a, b) => (tier.get(a) ?? 0) - (tier.get(b) ?? 0) || (by === 'accuracy' ? ascending(at(a).cost_per_correct_usd, at(b).cost_per_correct_usd) : 0) || order(a, b) || a - b,
  );
  return { ranking, tier };
}

/** Indexes of the ranked cells, best first. */
export function rankCells(cells: readonly SweepCell[], by: RankedBy): number[] {
  return rankWithTiers(cells, by).ranking;
}

/** Sets a sweep's `ranking` and every cell's `rank_tier` (removed from unranked cells). */
export function rankSweep(sweep: SweepRecord): void {
  const { ranking, tier } = rankWithTiers(sweep.cells, rankedBy(sweep.request));
  sweep.ranking = ranking;
  sweep.cells.forEach((cell, i) => {
    const t = tier.get(i);
    if (t === undefined) delete cell.rank_tier;
    else cell.rank_tier = t;
  });
}

/** What a point of the Pareto front costs: the suite's own time when known, else the cell's. */
function suiteCost(cell: SweepCell): number {
  return cell.suite_cost_usd ?? cell.cost_usd;
}

/** Cells with a correct answer that no other such cell dominates (≥ accuracy and ≤ cost, one strictly), cheapest first. */
export function paretoFront(cells: readonly SweepCell[]): number[] {
  const points = cells
    .map((cell, i) => ({ i, accuracy: cell.accuracy, cost: suiteCost(cell), ok: cell.status === 'succeeded' && (cell.passed === undefined ? (cell.accuracy ?? 0) > 0 : cell.passed > 0) }))
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

type Check = { name: keyof SweepConstraints; words: string; meets: (c: SweepCell) => boolean; best: (cells: readonly SweepCell[]) => string };

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

function checksOf(c: SweepConstraints): Check[] {
  const values = (cells: readonly SweepCell[], f: (c: SweepCell) => number | undefined) => cells.map(f).filter((v): v is number => v !== undefined);
  const checks: (Check | null)[] = [
    c.min_accuracy === undefined ? null : { name: 'min_accuracy', words: `accuracy ≥ ${pct(c.min_accuracy)}`, meets: (x) => (x.accuracy ?? -1) >= (c.min_accuracy ?? 0), best: (xs) => `the best is ${pct(Math.max(0, ...values(xs, (x) => x.accuracy)))}` },
    c.max_ttft_p99_ms === undefined ? null : { name: 'max_ttft_p99_ms', words: `TTFT p99 ≤ ${c.max_ttft_p99_ms} ms`, meets: (x) => x.ttft_p99_ms !== undefined && x.ttft_p99_ms <= (c.max_ttft_p99_ms ?? 0), best: (xs) => (values(xs, (x) => x.ttft_p99_ms).length ? `the lowest is ${Math.min(...values(xs, (x) => x.ttft_p99_ms))} ms` : 'no cell measured it') },
    c.max_usd_per_correct === undefined ? null : { name: 'max_usd_per_correct', words: `$ per correct answer ≤ $${c.max_usd_per_correct}`, meets: (x) => x.cost_per_correct_usd !== undefined && x.cost_per_correct_usd <= (c.max_usd_per_correct ?? 0), best: (xs) => (values(xs, (x) => x.cost_per_correct_usd).length ? `the lowest is $${Math.min(...values(xs, (x) => x.cost_per_correct_usd))}` : 'no cell had a correct answer') },
    c.max_usd_per_million_output_tokens === undefined ? null : { name: 'max_usd_per_million_output_tokens', words: `$ per million output tokens ≤ $${c.max_usd_per_million_output_tokens}`, meets: (x) => x.usd_per_million_output_tokens !== undefined && x.usd_per_million_output_tokens <= (c.max_usd_per_million_output_tokens ?? 0), best: (xs) => (values(xs, (x) => x.usd_per_million_output_tokens).length ? `the lowest is $${Math.min(...values(xs, (x) => x.usd_per_million_output_tokens))}` : 'no cell measured it') },
  ];
  return checks.filter((x): x is Check => x !== null);
}

/** The report's headline: the cheapest succeeded cell that meets every constraint, or which constraint nothing met. */
export function headlineOf(cells: readonly SweepCell[], constraints: SweepConstraints | undefined, by: RankedBy): SweepReport['headline'] {
  if (!constraints) return null;
  const checks = checksOf(constraints);
  const done = cells.map((c, i) => ({ c, i })).filter(({ c }) => c.status === 'succeeded');
  const price = (c: SweepCell) => (by === 'accuracy' ? (c.cost_per_correct_usd ?? Infinity) : (c.usd_per_million_output_tokens ?? Infinity));
  const meeting = done.filter(({ c }) => checks.every((k) => k.meets(c))).sort((a, b) => price(a.c) - price(b.c) || a.c.cost_usd - b.c.cost_usd || a.i - b.i);
  const winner = meeting[0];
  if (winner) {
    const what = checks.length > 0 ? checks.map((k) => k.words).join(', ') : 'no constraint given';
    return { met: true, cell: winner.i, text: `${winner.c.model} on ${winner.c.gpu} is the cheapest cell that meets ${what}`, unmet: [] };
  }
  if (done.length === 0) return { met: false, cell: null, text: 'no cell has finished yet', unmet: checks.map((k) => k.name) };
  const unmet = checks.filter((k) => !done.some(({ c }) => k.meets(c)));
  const text =
    unmet.length > 0
      ? `nothing met ${unmet.map((k) => `${k.words} (${k.best(done.map(({ c }) => c))})`).join('; ')}`
      : `no cell meets ${checks.map((k) => k.words).join(' and ')} at once; each is met by some cell`;
  return { met: false, cell: null, text, unmet: unmet.map((k) => k.name) };
}

/** The sweep's manifest: the sweep's request and what its suite cells' manifests agree on (a field they differ on is null). */
export function sweepManifest(sweep: SweepRecord): Manifest {
  const manifests = sweep.cells.flatMap((c) => (c.manifest ? [c.manifest] : []));
  const same = <K extends keyof Manifest>(key: K): Manifest[K] | null => {
    const first = manifests[0]?.[key];
    return first !== undefined && manifests.every((m) => JSON.stringify(m[key]) === JSON.stringify(first)) ? first : null;
  };
  const machines = [...sweep.earlier_machines, ...sweep.machines].filter((m) => m.instance_id !== undefined);
  const machine = machines.length === 1 ? machines[0] : undefined;
  const base = buildManifest({
    model: sweep.request.models.length === 1 ? (sweep.request.models[0] ?? null) : null,
    agent: sweep.request.suite_id !== undefined ? { name: sweep.request.agent, version: same('agent_version') } : null,
    template: sweep.request.template_hash ? { hash: sweep.request.template_hash, name: null } : null,
    machine: machine ? { instance_id: machine.instance_id ?? null, offer_id: machine.offer_id ?? null, gpu_name: machine.gpu, num_gpus: machine.num_gpus ?? null, dph_at_rent: machine.dph_total ?? null, download_usd_per_gb: null } : null,
    request: { ...sweep.request },
    started_at: sweep.started_at,
  });
  return {
    ...base,
    suite_id: sweep.request.suite_id ?? null,
    suite_sha256: same('suite_sha256'),
    snapshot_sha256: same('snapshot_sha256'),
    model_digest: same('model_digest'),
    backend_api: same('backend_api'),
    backend_version: same('backend_version'),
    temperature: same('temperature'),
    seed: same('seed'),
    num_ctx: same('num_ctx'),
  };
}

function rowOf(sweep: SweepRecord, i: number, rank: number | null, onFront: ReadonlySet<number>): ReportRow {
  const c = sweep.cells[i] as SweepCell;
  return {
    rank,
    cell: i,
    model: c.model,
    gpu: c.gpu,
    status: c.status,
    reason: c.reason ?? null,
    accuracy: c.accuracy ?? null,
    accuracy_ci95: c.accuracy !== undefined ? intervalOf(c) : null,
    passed: c.passed ?? null,
    total: c.total ?? null,
    errors: c.errors ?? null,
    cost_usd: c.cost_usd,
    suite_cost_usd: c.suite_cost_usd ?? null,
    cost_per_correct_usd: c.cost_per_correct_usd ?? null,
    output_tokens_per_s: c.output_tokens_per_s ?? null,
    ttft_p50_ms: c.ttft_p50_ms ?? null,
    ttft_p99_ms: c.ttft_p99_ms ?? null,
    usd_per_million_output_tokens: c.usd_per_million_output_tokens ?? null,
    pareto: onFront.has(i),
    serving_error: c.serving_error ?? null,
    model_digest: c.manifest?.model_digest ?? null,
  };
}

/** The report of a sweep as it stands: ranked rows first (their rank is the tier), then the unranked cells in matrix order. */
export function buildReport(sweep: SweepRecord): SweepReport {
  const by = rankedBy(sweep.request);
  const { ranking, tier } = rankWithTiers(sweep.cells, by);
  const pareto = paretoFront(sweep.cells);
  const onFront = new Set(pareto);
  const rest = sweep.cells.map((_, i) => i).filter((i) => !ranking.includes(i));
  return {
    sweep_id: sweep.sweep_id,
    name: sweep.name,
    status: sweep.status,
    ranked_by: by,
    spend_usd: sweep.spend_usd,
    max_total_cost_usd: sweep.max_total_cost_usd,
    as_of: sweep.updated_at,
    rows: [...ranking.map((i) => rowOf(sweep, i, tier.get(i) ?? null, onFront)), ...rest.map((i) => rowOf(sweep, i, null, onFront))],
    tags: tagTable(sweep.cells),
    pareto: pareto.map((i) => {
      const c = sweep.cells[i] as SweepCell;
      return { cell: i, model: c.model, gpu: c.gpu, accuracy: c.accuracy ?? 0, cost_usd: suiteCost(c) };
    }),
    constraints: sweep.request.constraints ?? null,
    headline: headlineOf(sweep.cells, sweep.request.constraints, by),
    manifest: sweepManifest(sweep),
  };
}
