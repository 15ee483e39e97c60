import { afterEach, describe, expect, it } from 'vitest';
import type { QuitDialog } from '../../src-main/desktop/quit-policy';
import { countRunningJobs, followRunningJobs, RunningJobsTracker } from '../../src-main/desktop/running-jobs';
import { DesktopShutdown } from '../../src-main/desktop/shutdown';
import { makeBench, removeDir, waitFor, type TestBench } from '../helpers/bench';

/** The desktop app's main-process logic against the real engine, store and in-process client. */

let t: TestBench | undefined;
afterEach(async () => {
  if (!t) return;
  await t.close();
  await removeDir(t.dir);
  t = undefined;
});

const benchmark = (question: string, marketplace: boolean) => ({
  kind: 'benchmark' as const,
  request: marketplace
    ? { question, model: 'llama3:8b', marketplace: true, template_hash: 'tmpl', min_dph: 0.1, max_dph: 1 }
    : { question, model: 'llama3:8b', backend_url: 'http://x' },
});

describe('running-job count from the live feed', () => {
  it('follows jobs starting and ending, without polling', async () => {
    t = await makeBench();
    const bd = t.bd;
    const seen: number[] = [];
    let counts = 0;
    const tracker = new RunningJobsTracker({
      count: () => {
        counts += 1;
        return countRunningJobs(bd.client());
      },
      onChange: (n) => seen.push(n),
    });
    const stop = new AbortController();
    const following = followRunningJobs(bd.client(), tracker, stop.signal);
    await waitFor(() => seen.length === 1, 'the first count');
    expect(seen).toEqual([0]);

    const a = await bd.client().createJob(benchmark('hold a', false));
    const b = await bd.client().createJob(benchmark('hold b', false));
    await waitFor(() => seen.at(-1) === 2, 'two running');
    t.recorder.release(a.job_id);
    await waitFor(() => seen.at(-1) === 1, 'one running');
    t.recorder.release(b.job_id);
    await waitFor(() => seen.at(-1) === 0, 'none running');
    expect(seen[0]).toBe(0);
    expect(seen.slice(-3)).toEqual([2, 1, 0]);
    // Counted on status events only: a handful of counts, not one per millisecond.
    const before = counts;
    await new Promise((r) => setTimeout(r, 100));
    expect(counts).toBe(before);

    stop.abort();
    await following;
  });
});

describe('quitting with a job that rents a machine (real engine)', () => {
  it('cancel and release: the renting job is cancelled and torn down, the rest stopped, and exit comes last', async () => {
    t = await makeBench();
    const bd = t.bd;
    const rented = await bd.client().createJob(benchmark('hang rented', true));
    const local = await bd.client().createJob(benchmark('hang local', false));
    await t.recorder.startedJob(rented.job_id);
    await t.recorder.startedJob(local.job_id);

    const order: string[] = [];
    const dialogs: QuitDialog[] = [];
    const shutdown = new DesktopShutdown({
      listRunning: () => bd.store.listJobsByStatus(['running']),
      cancel: (id) => bd.engine.cancel(id),
      settled: async (id) => {
        await bd.engine.settled(id);
        order.push(`settled ${id === rented.job_id ? 'rented' : 'local'}`);
      },
      close: async () => {
        order.push('close');
        await bd.close();
        order.push('closed');
      },
      ask: async (dialog) => {
        dialogs.push(dialog);
        return 0;
      },
      exit: () => order.push('exit'),
    });
    expect(shutdown.requestQuit()).toBe(false);
    await waitFor(() => order.includes('exit'), 'exit');
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]?.message).toBe('1 job rents a marketplace machine right now.');
    expect(order).toEqual(['settled rented', 'close', 'closed', 'exit']);
    // Both teardowns ran before exit: the rented one as a cancellation, the other at shutdown.
    expect(t.recorder.cleanups.map((c) => [c.jobId === rented.job_id ? 'rented' : 'local', c.reason])).toEqual([
      ['rented', 'cancelled'],
      ['local', 'shutdown'],
    ]);
    expect(shutdown.requestQuit()).toBe(true);
    t = { ...t, close: async () => undefined };
  });
});
