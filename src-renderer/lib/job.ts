import { isTerminal, type JobRecord } from '../../shared';
import { elapsedMs } from './format';

/** What a job has cost: a final figure, a machine still billing, or nothing rented. */
export type JobCost =
  | { type: 'final'; usd: number; dph: number | null }
  | { type: 'running'; dph: number; since: string }
  | null;

export function jobCost(job: JobRecord): JobCost {
  if (job.kind === 'benchmark' && job.result) {
    return job.result.cost.dph_total > 0 || job.result.cost.cost_usd > 0 ? { type: 'final', usd: job.result.cost.cost_usd, dph: job.result.cost.dph_total } : null;
  }
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace' && job.result.instance_running && !job.resources?.marketplace_instance_released) {
    // A kept machine bills until someone releases it (its release is recorded in the job's resources).
    return { type: 'running', dph: job.result.dph_total, since: job.result.rented_at };
  }
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace') {
    // Released by hand: the record was last written by that release.
    const ms = elapsedMs(job.result.rented_at, job.updated_at) ?? 0;
    return { type: 'final', usd: (job.result.dph_total * ms) / 3_600_000, dph: job.result.dph_total };
  }
  const r = job.resources;
  if (r?.dph_total && r.rented_at) {
    if (!isTerminal(job.status) && !r.marketplace_instance_released) return { type: 'running', dph: r.dph_total, since: r.rented_at };
    const end = job.finished_at ?? job.updated_at;
    const ms = elapsedMs(r.rented_at, end) ?? 0;
    return { type: 'final', usd: (r.dph_total * ms) / 3_600_000, dph: r.dph_total };
  }
  return null;
}

/** The model a job runs (llm-instance may have none on an existing backend). */
export function jobModel(job: JobRecord): string | null {
  return job.request.model ?? null;
}

/** Where the job's LLM runs: the rented machine, or the backend URL it was given. */
export function jobBackend(job: JobRecord): string {
  if (job.kind !== 'agentic-agent' && job.request.marketplace) return 'marketplace (rented GPU)';
  return job.request.backend_url ?? '—';
}

export const KIND_LABELS: Record<JobRecord['kind'], string> = {
  benchmark: 'Benchmark',
  'agentic-agent': 'Agent',
  'llm-instance': 'LLM instance',
};

/** The kind inside a sentence: "benchmark", "agent", "LLM instance" (acronyms keep their capitals). */
export function kindInSentence(kind: JobRecord['kind']): string {
  return KIND_LABELS[kind].replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
}
