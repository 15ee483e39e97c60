import { describe, expect, it } from 'vitest';
import type { JobEvent, JobStreamItem } from '../../shared';
import { clientError } from '../../shared/client';
import type { RendererApi } from '../bridge';
import { ev } from '../test-helpers';
import { followJobEvents } from './job-events';

type Script = (after: number) => AsyncIterable<JobStreamItem>;

/** A client whose streamJobEvents plays one script per connection and records `after`. */
function fakeApi(scripts: Script[]): { api: RendererApi; afters: number[] } {
  const afters: number[] = [];
  let n = 0;
  const api = {
    streamJobEvents: (input: { job_id: string; after?: number }) => {
      const after = input.after ?? 0;
      afters.push(after);
      const script = scripts[n++];
      if (!script) throw new Error('no more connections expected');
      return script(after);
    },
  } as unknown as RendererApi;
  return { api, afters };
}

function sink() {
  const batches: number[][] = [];
  const states: string[] = [];
  let resets = 0;
  return {
    batches,
    states,
    resets: () => resets,
    sink: {
      append: (events: readonly JobEvent[]) => batches.push(events.map((e) => e.seq)),
      reset: () => {
        resets++;
        batches.push([]);
      },
      state: (s: string) => states.push(s),
    },
  };
}

describe('followJobEvents', () => {
  it('delivers the log in batches, resumes after the last seq when the stream drops, and ends', async () => {
    const { api, afters } = fakeApi([
      async function* () {
        yield ev(1, 'job.queued');
        yield ev(2, 'job.running');
        throw clientError(503, 'upstream_unreachable', 'connection reset');
      },
      async function* () {
        yield ev(2, 'job.running'); // a resumed stream may repeat
        yield ev(3, 'job.succeeded');
      },
    ]);
    const s = sink();
    const queued: (() => void)[] = [];
    await followJobEvents(api, 'job-1', s.sink, new AbortController().signal, (fn) => queued.push(fn) && Promise.resolve().then(() => queued.shift()?.()));
    expect(afters).toEqual([0, 2]);
    expect(s.batches.flat()).toEqual([1, 2, 3]);
    expect(s.states).toEqual(['connecting', 'live', 'reconnecting', 'reconnecting', 'live', 'ended']);
  });

  it('on a reset (the server lost its place) forgets the log and takes it again from the start', async () => {
    const { api } = fakeApi([
      async function* () {
        yield ev(7, 'job.queued');
        yield ev(8, 'job.running');
        yield { reset: true, seq: 0, after: 8, oldest_seq: null, message: 'the event stream restarted' };
        yield ev(1, 'job.queued');
        yield ev(2, 'job.succeeded');
      },
    ]);
    const s = sink();
    await followJobEvents(api, 'job-1', s.sink, new AbortController().signal, (fn) => fn());
    expect(s.resets()).toBe(1);
    // Before the reset 7, 8; after it the log starts again (1, 2 would be dropped as old without the reset).
    expect(s.batches.filter((b) => b.length > 0).flat()).toEqual([7, 8, 1, 2]);
    expect(s.batches.findIndex((b) => b.length === 0)).toBeLessThan(s.batches.findIndex((b) => b.includes(1)));
    expect(s.states.at(-1)).toBe('ended');
  });

  it('stops on a 4xx (unknown job) instead of reconnecting', async () => {
    const { api, afters } = fakeApi([
      // eslint-disable-next-line require-yield
      async function* () {
        throw clientError(404, 'job_not_found', 'no job job-1');
      },
    ]);
    const s = sink();
    await followJobEvents(api, 'job-1', s.sink, new AbortController().signal, (fn) => fn());
    expect(afters).toEqual([0]);
    expect(s.states.at(-1)).toBe('error');
  });

  it('returns quietly when the page unmounts (abort)', async () => {
    const controller = new AbortController();
    const { api } = fakeApi([
      async function* () {
        yield ev(1, 'job.running');
        controller.abort();
        throw new Error('aborted');
      },
    ]);
    const s = sink();
    await followJobEvents(api, 'job-1', s.sink, controller.signal, (fn) => fn());
    expect(s.batches.flat()).toEqual([1]);
    expect(s.states).not.toContain('ended');
    expect(s.states).not.toContain('reconnecting');
  });
});
