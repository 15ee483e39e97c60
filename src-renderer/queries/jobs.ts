import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CancelJobResponse, CreateJobInput, JobAccepted, JobCounts, JobKind, JobListResponse, JobRecord } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys, type JobFilters } from './keys';

/** Rows per page of the Jobs list: one screenful and a bit, so scrolling rarely waits. */
export const JOBS_PAGE_SIZE = 100;

/** All jobs matching the filters (search and sort run on the server, over every job), a cursor page at a time. Live updates come from the feed. */
export function useJobList(filters: JobFilters) {
  const api = useApi();
  return useInfiniteQuery<JobListResponse, BenchdeskApiError, { pages: JobListResponse[] }, ReturnType<typeof queryKeys.jobs>, string | undefined>({
    queryKey: queryKeys.jobs(filters),
    queryFn: ({ pageParam, signal }) =>
      api.listJobs(
        {
          limit: JOBS_PAGE_SIZE,
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.kind ? { kind: filters.kind } : {}),
          ...(filters.q?.trim() ? { q: filters.q.trim() } : {}),
          ...(filters.sort && filters.sort !== '-created' ? { sort: filters.sort } : {}),
          ...(pageParam ? { cursor: pageParam } : {}),
        },
        { signal },
      ),
    initialPageParam: undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // The feed invalidates on status changes; no interval refetch.
    staleTime: 60_000,
  });
}

export function useJobCounts(kind: JobKind | undefined, q?: string) {
  const api = useApi();
  const search = q?.trim();
  return useQuery<JobCounts, BenchdeskApiError>({
    queryKey: queryKeys.jobCounts(kind, search),
    queryFn: ({ signal }) => api.getJobCounts({ ...(kind ? { kind } : {}), ...(search ? { q: search } : {}) }, { signal }),
    staleTime: 60_000,
    // Typing a search: keep the previous counts on screen until the new ones arrive (no flicker to "…").
    placeholderData: keepPreviousData,
  });
}

export function useJob(jobId: string) {
  const api = useApi();
  return useQuery<JobRecord, BenchdeskApiError>({
    queryKey: queryKeys.job(jobId),
    queryFn: ({ signal }) => api.getJob({ job_id: jobId }, { signal }),
    staleTime: 30_000,
  });
}

/** Submits a job; the caller passes the idempotency key of this submission attempt. */
export function useCreateJob() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<JobAccepted, BenchdeskApiError, CreateJobInput>({
    mutationFn: (input) => api.createJob(input),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.jobsAll });
      void qc.invalidateQueries({ queryKey: queryKeys.jobCountsAll });
    },
  });
}

export function useCancelJob(jobId: string) {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<CancelJobResponse, BenchdeskApiError, undefined>({
    mutationFn: () => api.cancelJob({ job_id: jobId }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.job(jobId) });
    },
  });
}
