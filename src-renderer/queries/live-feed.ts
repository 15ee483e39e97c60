import { useQueryClient, type InfiniteData, type InvalidateQueryFilters, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { JobStatusSchema, isStreamReset, type JobEvent, type JobListResponse, type JobRecord, type JobStatus } from '../../shared';
import { useApi, type RendererApi } from '../bridge';
import { useSession } from '../bridge/session';
import { useConnection } from '../state/connection';
import { useEventStreamStore } from '../state/event-stream';
import { toBenchdeskApiError } from '../../shared/client';
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
 * Invalidates what an event changed, including a query whose first read is still in flight. React
 * Query's refetch joins a first read in flight instead of starting another, and that read may have
 * been answered before the change: the event would be lost and the page stay stale (a sweep shown
 * running after it ended, seen on a loaded CI run). Such a query is read again once its read ends.
 */
export function invalidateFresh(qc: QueryClient, filters: InvalidateQueryFilters = {}): void {
  for (const query of qc.getQueryCache().findAll(filters)) {
    if (query.state.fetchStatus !== 'fetching' || query.state.data !== undefined) continue;
    const again = () => void qc.invalidateQueries({ queryKey: query.queryKey, exact: true });
    void query.promise?.then(again, again);
  }
  void qc.invalidateQueries(filters);
}

/** The event logs of open job pages (state/event-stream), as the feed appends to them. */
export type OpenLogs = { ended(jobId: string): boolean; append(jobId: string, event: JobEvent): void };

const openLogsStore: OpenLogs = {
  ended: (jobId) => useEventStreamStore.getState().streams[jobId]?.state === 'ended',
  append: (jobId, event) => useEventStreamStore.getState().append(jobId, [event]),
};

/**
 * Applies feed events to the cache: the status is patched in place at once (the badge changes
 * without a round trip), then the affected queries are invalidated. List invalidations are
 * coalesced, so a burst of status changes refetches the visible list once.
 */
export function createFeedApplier(qc: QueryClient, coalesceMs = 250, logs: OpenLogs = openLogsStore): { apply(event: JobEvent): void; dispose(): void } {
  let listTimer: ReturnType<typeof setTimeout> | null = null;
  return {
    apply(event) {
      // A job page whose own stream ended (at the terminal event) still shows what comes after:
      // a kept machine's release and its final cost arrive here.
      if (logs.ended(event.job_id)) logs.append(event.job_id, event);
      // A sweep's events (its matrix, spend and machines changed): read it again.
      if (typeof event.labels.sweep_id === 'string') {
        invalidateFresh(qc, { queryKey: ['sweeps'] });
        if (event.event.startsWith('sweep.machine.') || event.event === 'sweep.succeeded' || event.event === 'sweep.failed' || event.event === 'sweep.cancelled') {
          invalidateFresh(qc, { queryKey: ['instances'] });
        }
        if (event.job_id === event.labels.sweep_id) return;
      }
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
      if (action.refreshJob) invalidateFresh(qc, { queryKey: queryKeys.job(event.job_id) });
      if (action.refreshMachines) invalidateFresh(qc, { queryKey: ['instances'] });
      if (action.refreshLists && !listTimer) {
        listTimer = setTimeout(() => {
          listTimer = null;
          invalidateFresh(qc, { queryKey: queryKeys.jobsAll });
          invalidateFresh(qc, { queryKey: queryKeys.jobCountsAll });
        }, coalesceMs);
      }
    },
    dispose() {
      if (listTimer) clearTimeout(listTimer);
      listTimer = null;
    },
  };
}

/**
 * The queries the feed keeps current (what its events invalidate). Read again when the feed starts
 * listening; the others (offers, models, settings) do not change by job events and cost searches.
 */
const FEED_DRIVEN_ROOTS = ['jobs', 'job-counts', 'job', 'instances', 'sweeps', 'spend'] as const;

/** Pause before reopening the feed after its first connection failed (later drops reconnect inside the client). */
const RETRY_MS = 3000;

export type FeedSink = {
  apply(event: JobEvent): void;
  /** The server can be heard (a connection opened) or not (it broke, went silent, or cannot be reached). */
  link(state: 'up' | 'down'): void;
  /** Heard again after a time down: whatever changed meanwhile must be read again. */
  recovered(): void;
  /**
   * The first connection from no known position opened: the feed only carries what happens from
   * now on, so what the pages read before it listened (a sweep that ended in between) is read again.
   */
  listening(): void;
  /** The server refused the token (401). */
  refused(): void;
};

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

/**
 * Follows the tenant's feed until `signal` aborts, resuming after the last seq seen. Over HTTP the
 * client reports each connection opening and breaking (the server's one-second heartbeat makes a
 * silent server count as broken after 2.5 s): that is the app's signal that the server is there.
 */
export async function followFeed(api: Pick<RendererApi, 'streamEvents'>, sink: FeedSink, signal: AbortSignal, start: { after?: number | undefined } = {}, retryMs = RETRY_MS): Promise<void> {
  let after = start.after;
  let wasDown = false;
  let heardBefore = start.after !== undefined;
  const down = () => {
    wasDown = true;
    sink.link('down');
  };
  const onConnection = (state: 'open' | 'lost') => {
    if (state === 'lost') return down();
    sink.link('up');
    if (wasDown) {
      wasDown = false;
      heardBefore = true;
      sink.recovered();
    } else if (!heardBefore) {
      heardBefore = true;
      sink.listening();
    }
  };
  while (!signal.aborted) {
    try {
      for await (const event of api.streamEvents(after === undefined ? {} : { after }, { signal, onConnection })) {
        if (isStreamReset(event)) {
          // Events were missed (a long disconnection, a server restart): read again what is shown.
          after = event.seq > 0 ? event.seq : undefined;
          start.after = after;
          sink.recovered();
          continue;
        }
        after = event.seq;
        start.after = after;
        sink.apply(event);
      }
    } catch (err) {
      if (signal.aborted) break;
      const problem = toBenchdeskApiError(err);
      if (problem.status === 401) sink.refused();
      else down();
    }
    if (signal.aborted) break;
    await pause(retryMs, signal);
  }
}

/**
 * The app's one subscriber to the tenant's live event feed (push over IPC, SSE in browser mode).
 * Mounted once in the signed-in shell; reconnects after a drop from the last seq it saw. No polling.
 * Over HTTP it also keeps the connection state the banner and the frozen figures read.
 */
export function useLiveFeed(): void {
  const api = useApi();
  const qc = useQueryClient();
  const retryNonce = useConnection((s) => s.retryNonce);
  const position = useRef<{ after?: number | undefined }>({});
  useEffect(() => {
    const controller = new AbortController();
    const applier = createFeedApplier(qc);
    const http = api.transport === 'http';
    void followFeed(
      api,
      {
        apply: (event) => applier.apply(event),
        link: (state) => {
          if (http) useConnection.getState().setLink(state);
        },
        // Everything on screen may be stale: read it again (the costs resume ticking with it).
        recovered: () => invalidateFresh(qc),
        listening: () => {
          for (const root of FEED_DRIVEN_ROOTS) invalidateFresh(qc, { queryKey: [root] });
        },
        refused: () => useSession.getState().refused(),
      },
      controller.signal,
      position.current,
    );
    return () => {
      controller.abort();
      applier.dispose();
    };
  }, [api, qc, retryNonce]);
}
