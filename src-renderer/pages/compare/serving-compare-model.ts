import type { JobRecord, ServingLevel } from '../../../shared';

/** One finished serving benchmark as Compare shows it side by side with others. */
export type ServingCompareRow = {
  job_id: string;
  finished_at: string | null;
  model: string;
  gpu_name: string | null;
  num_gpus: number | null;
  dph_total: number | null;
  output_tokens: number;
  prompt_tokens: number;
  levels: readonly ServingLevel[];
  /** The level with the most output tokens/s, and the cheapest per million tokens (rented runs). */
  fastest: ServingLevel | null;
  cheapest: ServingLevel | null;
  cost_usd: number;
};

export function toServingRow(job: JobRecord): ServingCompareRow | null {
  if (job.kind !== 'serving-benchmark' || job.status !== 'succeeded' || !job.result) return null;
  const r = job.result;
  const at = (c: number | null) => (c === null ? null : (r.levels.find((l) => l.concurrency === c) ?? null));
  return {
    job_id: job.job_id,
    finished_at: job.finished_at,
    model: r.model,
    gpu_name: r.instance?.gpu_name ?? null,
    num_gpus: r.instance?.num_gpus ?? null,
    dph_total: r.instance ? r.cost.dph_total : null,
    output_tokens: r.output_tokens,
    prompt_tokens: r.prompt_tokens,
    levels: r.levels,
    fastest: at(r.best.by_throughput),
    cheapest: at(r.best.by_cost),
    cost_usd: r.cost.cost_usd,
  };
}

/** Every concurrency any of the runs measured, ascending: the shared x axis of the comparison chart (request-rate levels have none). */
export function sharedLevels(rows: readonly ServingCompareRow[]): number[] {
  return [...new Set(rows.flatMap((r) => r.levels.flatMap((l) => (l.concurrency === null ? [] : [l.concurrency]))))].sort((a, b) => a - b);
}

/** Each run's output tokens/s on the shared levels (null where a run did not measure that level). */
export function throughputSeries(rows: readonly ServingCompareRow[], levels: readonly number[]): (number | null)[][] {
  return rows.map((r) => levels.map((c) => r.levels.find((l) => l.concurrency === c && l.requests > 0)?.output_tokens_per_s ?? null));
}
