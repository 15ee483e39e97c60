import type { CostEstimationRequest, JobKind, JobSort, JobStatus } from '../../shared';

/** Every react-query key the app uses, in one place, so invalidation and pages agree. */
export type JobFilters = { status?: JobStatus | undefined; kind?: JobKind | undefined; q?: string | undefined; sort?: JobSort | undefined };

export const queryKeys = {
  jobsAll: ['jobs'] as const,
  jobs: (filters: JobFilters) => ['jobs', { status: filters.status ?? null, kind: filters.kind ?? null, q: filters.q?.trim() || null, sort: filters.sort ?? '-created' }] as const,
  jobCountsAll: ['job-counts'] as const,
  jobCounts: (kind: JobKind | undefined, q?: string) => ['job-counts', kind ?? null, q?.trim() || null] as const,
  job: (id: string) => ['job', id] as const,
  estimate: (input: Partial<CostEstimationRequest>) => ['estimate', input] as const,
  catalog: ['catalog'] as const,
  snapshots: ['snapshots'] as const,
  snapshotDocument: (id: string) => ['snapshot-document', id] as const,
  suites: ['suites'] as const,
  suite: (id: string) => ['suite', id] as const,
  answerScore: (jobId: string, suiteId: string, scenarioId: string) => ['answer-score', jobId, suiteId, scenarioId] as const,
};
