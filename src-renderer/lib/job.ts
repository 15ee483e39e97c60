import { jobCost, type JobCost, type JobRecord } from '../../shared';

/** What a job has cost: a final figure, a machine still billing, or nothing rented (shared with the store's sort by cost). */
export { jobCost, type JobCost };

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
  suite: 'Suite run',
  'serving-benchmark': 'Serving benchmark',
};

/** The kind inside a sentence: "benchmark", "agent", "LLM instance" (acronyms keep their capitals). */
export function kindInSentence(kind: JobRecord['kind']): string {
  return KIND_LABELS[kind].replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
}
