import { useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { JobStatusSchema, type JobEvent, type JobListResponse, type JobRecord, type JobStatus } from '../../shared';
import { useApi } from '../bridge';
import { queryKeys } from './keys';


/** What one feed event changes in the cache (pure, so it is unit-tested without a server). */
export type FeedAction = {
  /** The job's new status, for job.<status> events. */
  status: JobStatus | null;
  /** Refetch ['job', id] (status changes, phases, marketplace steps: what the header shows). */
  refreshJob: boolean;
  /** Refetch the job lists and counts (a job appeared or changed status). */
  refreshLists: boolean;
  /** Refetch the rented machines (one was rented, kept or released). */
  refreshMachines: boolean;
};

/** Events after which the marketplace's list of machines has changed. */
const MACHINE_EVENTS = new Set(['marketplace.instance.create', 'marketplace.instance.destroy', 'marketplace.instance.kept']);

export function feedAction(event: Pick<JobEvent, 'event' | 'status'>): FeedAction {
  const status = event.event.startsWith('job.') ? JobStatusSchema.safeParse(event.event.slice('job.'.length)) : null;
  const refreshMachines = MACHINE_EVENTS.has(event.event) && event.status !== 'started' && event.status !== 'error';
  if (status?.success) return { status: status.data, refreshJob: true, refreshLists: true, refreshMachines };
  const headerEvent = event.event.startsWith('phase.') || event.event.startsWith('marketplace.');
  return { status: null, refreshJob: headerEvent && event.status !== 'info', refreshLists: false, refreshMachines };
}

/**
 * Applies feed events to the cache: the status is patched in place at once (the badge changes
 * without a round trip), then the affected queries are invalidated. List invalidations are
 * coalesced, so a burst of status changes refetches the visible list once.
 */
export function createFeedApplier(qc: QueryClient, coalesceMs = 250): { apply(event: JobEvent): void; dispose(): void } {
  let listTimer: ReturnType<typeof setTimeout> | null = null;
  return {
    apply(event) {
      const action = feedAction(event);
      if (action.status) {
        const status = action.status;
        qc.setQueryData<JobRecord>(queryKeys.job(event.job_id), (old) => (old ? { ...old, status } : old));
        qc.setQueriesData<InfiniteData<JobListResponse>>({ queryKey: queryKeys.jobsAll }, (old) =>
          old
            ? { ...old, pages: old.pages.map((p) => ({ ...p, jobs: p.jobs.map((j) => (j.job_id === event.job_id ? { ...j, status } : j)) })) }
            : old,
        );
      }
      if (action.refreshJob) void qc.invalidateQueries({ queryKey: queryKeys.job(event.job_id) });
      if (action.refreshMachines) void qc.invalidateQueries({ queryKey: ['instances'] });
      if (action.refreshLists && !listTimer) {
        listTimer = setTimeout(() => {
          listTimer = null;
          void qc.invalidateQueries({ queryKey: queryKeys.jobsAll });
          void qc.invalidateQueries({ queryKey: queryKeys.jobCountsAll });
        }, coalesceMs);
      }
    },
    dispose() {
      if (listTimer) clearTimeout(listTimer);
      listTimer = null;
    },
  };
}

const RETRY_MS = 3000;

/**
 * The app's one subscriber to the tenant's live event feed (push over IPC, SSE in browser mode).
 * Mounted once in the shell; reconnects after a drop from the last seq it saw. No polling.
 */
export function useLiveFeed(): void {
  const api = useApi();
  const qc = useQueryClient();
  useEffect(() => {
    const controller = new AbortController();
    const applier = createFeedApplier(qc);
    let after: number | undefined;
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          for await (const event of api.streamEvents(after === undefined ? {} : { after }, { signal: controller.signal })) {
            after = event.seq;
            applier.apply(event);
          }
        } catch {
          // Unreachable API or 401: the shell's connection banner says so; try again quietly.
        }
        if (controller.signal.aborted) break;
        // Whatever changed while we were away: refetch what is on screen.
        await new Promise((r) => setTimeout(r, RETRY_MS));
        void qc.invalidateQueries({ queryKey: queryKeys.jobsAll });
        void qc.invalidateQueries({ queryKey: queryKeys.jobCountsAll });
      }
    })();
    return () => {
      controller.abort();
      applier.dispose();
    };
  }, [api, qc]);
}
