import type { JobRecord, ServingLevel, SweepRecord } from '../../../shared';

/** One finished serving benchmark as Compare shows it side by side with others. */
export type ServingCompareRow = {
  job_id: string;
  finished_at: string | null;
  model: string;
  gpu_name: string | null;
  num_gpus: number | null;
  dph_total: number | null;
  /** The rented machine's instance, when there was one (the job's own, or its sweep's). */
  instance_id: number | null;
  /** The API the backend spoke (manifest.backend_api): `ollama` when the result does not say. */
  engine: string;
  /** The sweep whose machine ran it, when a sweep did. */
  sweep: string | null;
  output_tokens: number;
  prompt_tokens: number;
  levels: readonly ServingLevel[];
  /** The level with the most output tokens/s, and the cheapest per million tokens (rented runs). */
  fastest: ServingLevel | null;
  cheapest: ServingLevel | null;
  /** $ per million output tokens at the cheapest level: the job's own figure, or the sweep's for a sweep's run. */
  usd_per_million: number | null;
  cost_usd: number;
};

/** The engine a serving result was measured on; results from before engines were recorded spoke Ollama. */
function engineOf(result: unknown): string {
  const manifest = typeof result === 'object' && result !== null ? (result as { manifest?: unknown }).manifest : undefined;
  const api = typeof manifest === 'object' && manifest !== null ? (manifest as { backend_api?: unknown }).backend_api : undefined;
  return typeof api === 'string' && api ? api : 'ollama';
}

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
    instance_id: r.instance?.id ?? null,
    engine: engineOf(r),
    sweep: null,
    output_tokens: r.output_tokens,
    prompt_tokens: r.prompt_tokens,
    levels: r.levels,
    fastest: at(r.best.by_throughput),
    cheapest: at(r.best.by_cost),
    usd_per_million: at(r.best.by_cost)?.usd_per_million_output_tokens ?? null,
    cost_usd: r.cost.cost_usd,
  };
}

/**
 * A sweep's serving run ran on the sweep's machine (its job rented nothing): it carries that
 * machine's GPU, $/h and instance, and the sweep's $ per million output tokens for its cell.
 */
export function withSweepMachine(row: ServingCompareRow, sweeps: readonly SweepRecord[]): ServingCompareRow {
  if (row.gpu_name) return row;
  for (const sweep of sweeps) {
    const cell = sweep.cells.find((c) => c.job_ids.includes(row.job_id));
    if (!cell) continue;
    const machine = [...sweep.machines, ...sweep.earlier_machines].find((m) => m.gpu === cell.gpu);
    return {
      ...row,
      gpu_name: cell.gpu,
      num_gpus: machine?.num_gpus ?? 1,
      dph_total: machine?.dph_total ?? null,
      instance_id: machine?.instance_id ?? null,
      sweep: sweep.name,
      usd_per_million: row.usd_per_million ?? cell.usd_per_million_output_tokens ?? null,
    };
  }
  return row;
}

/** Every concurrency any of the runs measured, ascending: the shared x axis of the comparison chart (request-rate levels have none). */
export function sharedLevels(rows: readonly ServingCompareRow[]): number[] {
  return [...new Set(rows.flatMap((r) => r.levels.flatMap((l) => (l.concurrency === null ? [] : [l.concurrency]))))].sort((a, b) => a - b);
}

/** Each run's output tokens/s on the shared levels (null where a run did not measure that level). */
export function throughputSeries(rows: readonly ServingCompareRow[], levels: readonly number[]): (number | null)[][] {
  return rows.map((r) => levels.map((c) => r.levels.find((l) => l.concurrency === c && l.requests > 0)?.output_tokens_per_s ?? null));
}
