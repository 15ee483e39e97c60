import type { CostEstimationRequest, JobKind, JobStatus } from '../../shared';

/** Every react-query key the app uses, in one place, so invalidation and pages agree. */
export type JobFilters = { status?: JobStatus | undefined; kind?: JobKind | undefined };

export const queryKeys = {
  jobsAll: ['jobs'] as const,
  jobs: (filters: JobFilters) => ['jobs', { status: filters.status ?? null, kind: filters.kind ?? null }] as const,
  jobCountsAll: ['job-counts'] as const,
  jobCounts: (kind: JobKind | undefined) => ['job-counts', kind ?? null] as const,
  job: (id: string) => ['job', id] as const,
  estimate: (input: Partial<CostEstimationRequest>) => ['estimate', input] as const,
  catalog: ['catalog'] as const,
  snapshots: ['snapshots'] as const,
  snapshotDocument: (id: string) => ['snapshot-document', id] as const,
};
