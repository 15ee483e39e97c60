import { isTerminal, type JobRecord } from './jobs';

/**
 * Figures derived from a job record that the Jobs list shows, searches and sorts by. The renderer
 * and the store's index compute them with these same functions, so a sort by cost on the server
 * agrees with the cost the row shows.
 */

/** What a job has cost: a final figure, a machine still billing (rate and since when), or nothing rented. */
export type JobCost = { type: 'final'; usd: number; dph: number | null } | { type: 'running'; dph: number; since: string; downloadUsd: number } | null;

function elapsed(startIso: string, endIso: string): number {
  const ms = Date.parse(endIso) - Date.parse(startIso);
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

export function jobCost(job: JobRecord): JobCost {
  // The model's download on a rented machine is billed once, on top of its time.
  const downloadUsd = job.resources?.download_usd ?? 0;
  const res = job.resources;
  // Released: the ledger's final figure (machine time up to the release, downloads included), never less than what was shown while it billed.
  if (res?.marketplace_instance_released && typeof res.cost_usd === 'number') return { type: 'final', usd: res.cost_usd, dph: res.dph_total ?? null };
  // Kept after the job on request: it bills on until someone releases it, whatever the job's result says.
  if (isTerminal(job.status) && res?.marketplace_stop_instance === false && res.marketplace_instance_released === false && res.dph_total && res.rented_at) {
    return { type: 'running', dph: res.dph_total, since: res.rented_at, downloadUsd };
  }
  if (job.kind === 'benchmark' && job.result) {
    return job.result.cost.dph_total > 0 || job.result.cost.cost_usd > 0 ? { type: 'final', usd: job.result.cost.cost_usd, dph: job.result.cost.dph_total } : null;
  }
  // A suite's result has a cost only when it rented (machine time plus the model's download).
  if (job.kind === 'suite' && job.result) {
    return job.result.cost ? { type: 'final', usd: job.result.cost.cost_usd, dph: job.result.cost.dph_total } : null;
  }
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace' && job.result.instance_running && !job.resources?.marketplace_instance_released) {
    // A kept machine bills until someone releases it (its release is recorded in the job's resources).
    return { type: 'running', dph: job.result.dph_total, since: job.result.rented_at, downloadUsd };
  }
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace') {
    // Released by hand: the record was last written by that release.
    return { type: 'final', usd: (job.result.dph_total * elapsed(job.result.rented_at, job.updated_at)) / 3_600_000 + downloadUsd, dph: job.result.dph_total };
  }
  const r = job.resources;
  if (r?.dph_total && r.rented_at) {
    if (!isTerminal(job.status) && !r.marketplace_instance_released) return { type: 'running', dph: r.dph_total, since: r.rented_at, downloadUsd };
    return { type: 'final', usd: (r.dph_total * elapsed(r.rented_at, job.finished_at ?? job.updated_at)) / 3_600_000 + downloadUsd, dph: r.dph_total };
  }
  return null;
}

/** Dollars a job has cost by `now` (a machine still billing counts up to `now`); null when nothing was rented. */
export function jobCostUsd(job: JobRecord, now: number): number | null {
  const cost = jobCost(job);
  if (!cost) return null;
  if (cost.type === 'final') return cost.usd;
  const since = Date.parse(cost.since);
  return Number.isFinite(since) ? (cost.dph * Math.max(0, now - since)) / 3_600_000 + cost.downloadUsd : null;
}

/** How long the job ran (start to end); null until it has both. */
export function jobDurationMs(job: Pick<JobRecord, 'started_at' | 'finished_at'>): number | null {
  return job.started_at && job.finished_at ? elapsed(job.started_at, job.finished_at) : null;
}

/** The model a job runs (an llm-instance on an existing backend may have none). */
export function jobModelName(job: JobRecord): string | null {
  return job.request.model ?? null;
}

/**
 * Where the job's LLM ran, as words to search: the backend URL it was given or the rented
 * machine's, and the rented GPU.
 */
export function jobBackendText(job: JobRecord): string {
  const parts: string[] = [];
  if (job.kind !== 'agentic-agent' && job.request.marketplace) parts.push('marketplace');
  if (job.request.backend_url) parts.push(job.request.backend_url);
  if (job.kind === 'benchmark' && job.result) {
    parts.push(job.result.backend_url);
    if (job.result.instance?.gpu_name) parts.push(job.result.instance.gpu_name);
  } else if (job.kind === 'suite' && job.result) {
    parts.push(job.result.backend_url);
  } else if (job.kind === 'llm-instance' && job.result) {
    parts.push(job.result.backend_url);
    if (job.result.mode === 'marketplace') parts.push(job.result.offer.gpu_name);
  }
  return [...new Set(parts)].join(' ');
}

/** The message a row shows: the failure reason when there is one, else the status message. */
export function jobNote(job: Pick<JobRecord, 'error' | 'message'>): string {
  return job.error ?? job.message;
}

/** What the job asked: an agent or benchmark question, or the suite a suite run scored; null for the others. */
export function jobQuestion(job: JobRecord): string | null {
  if (job.kind === 'agentic-agent' || job.kind === 'benchmark') return job.request.question;
  if (job.kind === 'suite') return `suite ${job.request.suite_id}`;
  return null;
}

/** The agent a job asked (the default `builtin` when the request named none); null for kinds without one. */
export function jobAgent(job: JobRecord): string | null {
  if (job.kind === 'agentic-agent' || job.kind === 'benchmark' || job.kind === 'suite') return job.request.agent ?? 'builtin';
  return null;
}

/** Most characters of the question kept for search (the index holds one per job). */
export const JOB_QUESTION_MAX = 300;

/** Most characters of the note kept for search (the index holds one per job). */
export const JOB_NOTE_MAX = 200;

/** The words of a search: lower case, split on white space, empty ones dropped. */
export function searchWords(q: string | undefined): string[] {
  return (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether every word occurs in the (lower-case) text. */
export function matchesWords(text: string, words: readonly string[]): boolean {
  for (const w of words) if (!text.includes(w)) return false;
  return true;
}
