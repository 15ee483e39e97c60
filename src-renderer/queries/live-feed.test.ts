import { QueryClient, QueryObserver, type InfiniteData } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobListResponse, JobRecord, JobStreamItem } from '../../shared';
import { agentJob, ev } from '../test-helpers';
import { queryKeys } from './keys';
import { clientError } from '../../shared/client';
import { createFeedApplier, feedAction, followFeed } from './live-feed';

afterEach(() => {
  vi.useRealTimers();
});

describe('feedAction', () => {
  it('status events patch the status and refresh the job and the lists', () => {
    expect(feedAction({ event: 'job.succeeded', status: 'info' })).toEqual({ status: 'succeeded', refreshJob: true, refreshLists: true, refreshMachines: false });
    expect(feedAction({ event: 'job.queued', status: 'info' })).toEqual({ status: 'queued', refreshJob: true, refreshLists: true, refreshMachines: false });
  });

  it('phase and marketplace steps refresh the job only; chatter refreshes nothing', () => {
    expect(feedAction({ event: 'phase.warmup', status: 'ok' })).toEqual({ status: null, refreshJob: true, refreshLists: false, refreshMachines: false });
    expect(feedAction({ event: 'marketplace.instance.destroy', status: 'ok' })).toMatchObject({ refreshJob: true, refreshLists: false, refreshMachines: true });
    // A machine rented, kept or released changes the list of machines; a step that only started does not.
    expect(feedAction({ event: 'marketplace.instance.create', status: 'ok' }).refreshMachines).toBe(true);
    expect(feedAction({ event: 'marketplace.instance.kept', status: 'info' }).refreshMachines).toBe(true);
    expect(feedAction({ event: 'marketplace.instance.create', status: 'started' }).refreshMachines).toBe(false);
    expect(feedAction({ event: 'llmserver.pull.progress', status: 'info' })).toEqual({ status: null, refreshJob: false, refreshLists: false, refreshMachines: false });
    expect(feedAction({ event: 'cost.update', status: 'info' })).toEqual({ status: null, refreshJob: false, refreshLists: false, refreshMachines: false });
    expect(feedAction({ event: 'job.cancel_requested', status: 'info' })).toEqual({ status: null, refreshJob: false, refreshLists: false, refreshMachines: false });
  });
});

describe('createFeedApplier', () => {
  it("appends what comes after a job's terminal event to its open log once the job's own stream ended, and nothing to logs still streaming", () => {
    const qc = new QueryClient();
    const appended: { jobId: string; seq: number }[] = [];
    const ended = new Set(['kept']);
    const applier = createFeedApplier(qc, 10, { ended: (id) => ended.has(id), append: (jobId, e) => appended.push({ jobId, seq: e.seq }) });
    applier.apply(ev(40, 'marketplace.instance.release', 'info', { job_id: 'kept' }));
    applier.apply(ev(41, 'marketplace.instance.destroy', 'ok', { job_id: 'kept' }));
    applier.apply(ev(42, 'phase.warmup', 'ok', { job_id: 'live' }));
    expect(appended).toEqual([
      { jobId: 'kept', seq: 40 },
      { jobId: 'kept', seq: 41 },
    ]);
    applier.dispose();
  });

  it('patches the status in the job and in every cached list page at once, then invalidates', () => {
    const qc = new QueryClient();
    qc.setQueryData<JobRecord>(queryKeys.job('a'), agentJob('a'));
    const page: JobListResponse = { jobs: [agentJob('a'), agentJob('b')], next_cursor: null };
    qc.setQueryData<InfiniteData<JobListResponse>>(queryKeys.jobs({}), { pages: [page], pageParams: [undefined] });
    const applier = createFeedApplier(qc, 10);
    applier.apply(ev(7, 'job.failed', 'info', { job_id: 'a' }));
    expect(qc.getQueryData<JobRecord>(queryKeys.job('a'))?.status).toBe('failed');
    const list = qc.getQueryData<InfiniteData<JobListResponse>>(queryKeys.jobs({}));
    expect(list?.pages[0]?.jobs.map((j) => `${j.job_id}:${j.status}`)).toEqual(['a:failed', 'b:running']);
    expect(qc.getQueryState(queryKeys.job('a'))?.isInvalidated).toBe(true);
    applier.dispose();
  });

  it("a sweep's events refresh the sweeps, and its machines when one is rented or released; no job is touched", () => {
    const qc = new QueryClient();
    const spy = vi.spyOn(qc, 'invalidateQueries');
    const applier = createFeedApplier(qc, 10);
    const keys = () => spy.mock.calls.map(([f]) => JSON.stringify(f?.queryKey));
    applier.apply({ ...ev(5, 'sweep.cell.succeeded', 'ok', { job_id: 'sw-abc' }), labels: { sweep_id: 'sw-abc' } });
    expect(keys()).toEqual(['["sweeps"]']);
    applier.apply({ ...ev(6, 'sweep.machine.released', 'ok', { job_id: 'sw-abc' }), labels: { sweep_id: 'sw-abc' } });
    expect(keys()).toEqual(['["sweeps"]', '["sweeps"]', '["instances"]']);
    applier.dispose();
  });

  it("an event that arrives while a page's first read is in flight is not lost: the page reads again once that read ends", async () => {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    // The server's sweep, and the reads of the page: the first is answered "running" after the sweep ended.
    const answers: ((status: string) => void)[] = [];
    const observer = new QueryObserver(qc, {
      queryKey: ['sweeps', 'one', 'sw-abc'],
      queryFn: () => new Promise<string>((resolve) => answers.push(resolve)),
    });
    const seen: (string | undefined)[] = [];
    const unsubscribe = observer.subscribe((r) => seen.push(r.data));
    await vi.waitFor(() => expect(answers.length).toBe(1));
    const applier = createFeedApplier(qc, 10);
    applier.apply({ ...ev(7, 'sweep.succeeded', 'ok', { job_id: 'sw-abc' }), labels: { sweep_id: 'sw-abc' } });
    answers[0]?.('running');
    // A second read follows the first; without it the page would say "running" until the next event.
    await vi.waitFor(() => expect(answers.length).toBe(2));
    answers[1]?.('succeeded');
    await vi.waitFor(() => expect(observer.getCurrentResult().data).toBe('succeeded'));
    expect([...new Set(seen.filter(Boolean))]).toEqual(['running', 'succeeded']);
    unsubscribe();
    applier.dispose();
  });

  it('coalesces a burst of status changes into one list invalidation', () => {
    vi.useFakeTimers();
    const qc = new QueryClient();
    const spy = vi.spyOn(qc, 'invalidateQueries');
    const applier = createFeedApplier(qc, 250);
    for (let i = 0; i < 20; i++) applier.apply(ev(i + 1, 'job.queued', 'info', { job_id: `j${i}` }));
    const listCalls = () => spy.mock.calls.filter(([f]) => JSON.stringify(f?.queryKey) === JSON.stringify(queryKeys.jobsAll)).length;
    expect(listCalls()).toBe(0);
    vi.advanceTimersByTime(300);
    expect(listCalls()).toBe(1);
    expect(spy.mock.calls.filter(([f]) => JSON.stringify(f?.queryKey) === JSON.stringify(queryKeys.jobCountsAll))).toHaveLength(1);
    applier.apply(ev(99, 'job.running', 'info', { job_id: 'j1' }));
    vi.advanceTimersByTime(300);
    expect(listCalls()).toBe(2);
    applier.dispose();
  });
});

describe('followFeed: whether the server can be heard', () => {
  type Options = { signal?: AbortSignal; onConnection?: (s: 'open' | 'lost') => void };
  /** A feed whose connections run `scripts` in turn (each may open, yield, lose, throw). */
  function fakeFeed(scripts: ((o: Options) => AsyncGenerator<ReturnType<typeof ev>>)[]) {
    const afters: (number | undefined)[] = [];
    let n = 0;
    return {
      afters,
      api: {
        streamEvents: (input: { after?: unknown } | undefined, o: Options = {}) => {
          afters.push(input?.after as number | undefined);
          const script = scripts[n++];
          if (!script) throw new Error('no more connections expected');
          return script(o);
        },
      },
    };
  }

  it('goes down when a connection is lost, up again when one opens, asks for a refresh once recovered, and resumes after the last seq', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const feed = fakeFeed([
      // The first connection cannot be made (server not started): down, retried.
      // eslint-disable-next-line require-yield
      async function* () {
        throw clientError(503, 'upstream_unreachable', 'cannot reach the benchdesk API');
      },
      async function* (o) {
        o.onConnection?.('open');
        yield ev(1, 'job.queued');
        o.onConnection?.('lost'); // the server stopped; the client reconnects by itself
        o.onConnection?.('open');
        yield ev(2, 'job.running');
        controller.abort();
      },
    ]);
    await followFeed(
      feed.api,
      { apply: (e) => log.push(`event ${e.seq}`), link: (s) => log.push(s), recovered: () => log.push('recovered'), listening: () => log.push('listening'), refused: () => log.push('refused') },
      controller.signal,
      {},
      1,
    );
    expect(log).toEqual(['down', 'up', 'recovered', 'event 1', 'down', 'up', 'recovered', 'event 2']);
    expect(feed.afters).toEqual([undefined, undefined]);
  });

  it('the first connection re-reads what was read before it listened, once; a feed resumed from a known seq does not', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const sink = { apply: (e: { seq: number }) => log.push(`event ${e.seq}`), link: (s: string) => log.push(s), recovered: () => log.push('recovered'), listening: () => log.push('listening'), refused: () => log.push('refused') };
    const feed = fakeFeed([
      async function* (o) {
        o.onConnection?.('open');
        yield ev(1, 'job.queued');
        o.onConnection?.('lost');
        o.onConnection?.('open');
        yield ev(2, 'job.running');
        controller.abort();
      },
    ]);
    await followFeed(feed.api, sink, controller.signal, {}, 1);
    // A sweep that ended between the page's first read and the feed's opening is read again.
    expect(log).toEqual(['up', 'listening', 'event 1', 'down', 'up', 'recovered', 'event 2']);

    const resumed = new AbortController();
    log.length = 0;
    const feed2 = fakeFeed([
      async function* (o) {
        o.onConnection?.('open');
        yield ev(8, 'job.queued');
        resumed.abort();
      },
    ]);
    await followFeed(feed2.api, sink, resumed.signal, { after: 7 }, 1);
    expect(log).toEqual(['up', 'event 8']);
    expect(feed2.afters).toEqual([7]);
  });

  it('a refused token is not a lost server', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const feed = fakeFeed([
      // eslint-disable-next-line require-yield
      async function* () {
        controller.abort();
        throw clientError(401, 'unauthorized', 'invalid tenant/token combination');
      },
    ]);
    await followFeed(feed.api, { apply: () => undefined, link: (s) => log.push(s), recovered: () => log.push('recovered'), listening: () => log.push('listening'), refused: () => log.push('refused') }, controller.signal, {}, 1);
    expect(log).toEqual([]);
    const again = new AbortController();
    const feed2 = fakeFeed([
      // eslint-disable-next-line require-yield
      async function* () {
        throw clientError(401, 'unauthorized', 'invalid tenant/token combination');
      },
      // eslint-disable-next-line require-yield
      async function* () {
        again.abort();
      },
    ]);
    await followFeed(feed2.api, { apply: () => undefined, link: (s) => log.push(s), recovered: () => log.push('recovered'), listening: () => log.push('listening'), refused: () => log.push('refused') }, again.signal, {}, 1);
    expect(log).toEqual(['refused']);
  });
});

describe('followFeed: a reset', () => {
  it('asks for everything on screen again, goes on with the events after it, and resumes from its position', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const afters: unknown[] = [];
    let connections = 0;
    const api = {
      streamEvents: (input: { after?: unknown } | undefined): AsyncIterable<JobStreamItem> => {
        afters.push(input?.after);
        connections++;
        return (async function* () {
          if (connections === 1) {
            yield ev(3, 'job.queued');
            // The server no longer holds what came after 3: it says so instead of leaving a gap.
            yield { reset: true, seq: 41, after: 3, oldest_seq: 40, message: 'events after 3 are no longer held' };
            yield ev(42, 'job.running');
            throw clientError(503, 'upstream_unreachable', 'connection reset');
          }
          controller.abort();
        })();
      },
    };
    await followFeed(api, { apply: (e) => log.push(`event ${e.seq}`), link: () => undefined, recovered: () => log.push('recovered'), listening: () => log.push('listening'), refused: () => log.push('refused') }, controller.signal, {}, 1);
    expect(log).toEqual(['event 3', 'recovered', 'event 42']);
    expect(afters).toEqual([undefined, 42]);
  });
});
