import { describe, expect, it } from 'vitest';
import type { LeanClient } from './lean-request';
import type { LevelDone, WorkerBody, WorkerLevelPlan, WorkerRecord, WorkerToMain } from './protocol';
import { bodyFeed, runWorkerLevel } from './source';

/**
 * The worker's level runner on its own, in this thread, with a client whose requests end when the
 * test says: the closed loop, warm-ups left out, the rate schedule, the cap on requests in
 * flight, and the two ways a level stops early (its first requests all fail; its deadline).
 */

type Pending = { body: WorkerBody; finish: (error?: string) => void; aborted: string | null };

function gatedClient() {
  const pending: Pending[] = [];
  const sentAt: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: LeanClient = {
    send(body, _timeout, onSent) {
      const t = performance.now();
      sentAt.push(t);
      onSent(t);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let resolve: (r: WorkerRecord) => void = () => undefined;
      const done = new Promise<WorkerRecord>((r) => (resolve = r));
      const entry: Pending = { body, aborted: null, finish: () => undefined };
      let settled = false;
      const end = (error: string | null) => {
        if (settled) return;
        settled = true;
        inFlight--;
        resolve({ level: 0, seq: 0, startedAtMs: t, ttftMs: error ? null : 1, e2eMs: error ? null : 2, itlMs: [], textChunks: 1, askedTokens: body.askedTokens, promptTokens: 1, finishReason: error ? null : 'length', error, final: null });
      };
      entry.finish = (error) => end(error ?? null);
      pending.push(entry);
      return {
        done,
        abort: (reason) => {
          entry.aborted = reason;
          end(reason);
        },
      };
    },
  };
  return { client, pending, sentAt, get inFlight() { return inFlight; }, get maxInFlight() { return maxInFlight; } };
}

function feedOf(bodies: number) {
  const messages: WorkerToMain[] = [];
  let n = 0;
  const feed = bodyFeed((m) => {
    messages.push(m);
    if (m.type === 'need') queueMicrotask(() => feed.add(Array.from({ length: Math.min(m.count, bodies - n) }, () => ({ body: `b${n++}`, askedTokens: 4, promptTokens: 1 }))));
  });
  return { feed, messages };
}

const plan = (over: Partial<WorkerLevelPlan> = {}): WorkerLevelPlan => ({
  level: 1,
  warmup: 0,
  count: 10,
  durationMs: null,
  concurrency: 4,
  offsetsMs: null,
  requestTimeoutMs: 60_000,
  levelTimeoutMs: 60_000,
  failFast: 8,
  ...over,
});

const tick = () => new Promise((r) => setTimeout(r, 1));

async function drive(g: ReturnType<typeof gatedClient>, run: Promise<LevelDone>, finishWith: (i: number) => string | undefined = () => undefined): Promise<LevelDone> {
  let i = 0;
  let done: LevelDone | null = null;
  void run.then((d) => (done = d));
  while (!done) {
    await tick();
    for (const p of g.pending.splice(0)) p.finish(finishWith(i++));
  }
  return done;
}

describe('runWorkerLevel', () => {
  it('keeps exactly c requests in flight, runs the warm-up first and reports only the measured requests, numbered in start order', async () => {
    const g = gatedClient();
    const { feed } = feedOf(100);
    const records: WorkerRecord[] = [];
    const run = runWorkerLevel(g.client, plan({ warmup: 3, count: 10, concurrency: 4 }), feed, (m) => m.type === 'records' && records.push(...m.records), { stop: () => undefined });
    await tick();
    await tick();
    // The warm-up: 3 at once (min of concurrency and its count).
    expect(g.inFlight).toBe(3);
    const done = await drive(g, run);
    expect(g.maxInFlight).toBe(4);
    expect(g.sentAt).toHaveLength(13);
    expect(done).toMatchObject({ level: 1, started: 10, stopped: null });
    expect(records.map((r) => r.seq).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(records.every((r) => r.level === 1 && r.startedAtMs >= 0)).toBe(true);
  });

  it('stops a level whose first requests all fail, stopping those in flight, and says why', async () => {
    const g = gatedClient();
    const { feed } = feedOf(100);
    const run = runWorkerLevel(g.client, plan({ count: 50, concurrency: 2, failFast: 4 }), feed, () => undefined, { stop: () => undefined });
    const done = await drive(g, run, () => 'HTTP 500: boom');
    expect(done.stopped).toBe('its first 4 requests all failed (the first: HTTP 500: boom)');
    // 4 failures, plus at most the one in flight when the fourth ended (aborted with the reason).
    expect(g.sentAt.length).toBeLessThanOrEqual(5);
  });

  it('does not stop for failures once a request succeeded', async () => {
    const g = gatedClient();
    const { feed } = feedOf(100);
    const run = runWorkerLevel(g.client, plan({ count: 12, concurrency: 1, failFast: 3 }), feed, () => undefined, { stop: () => undefined });
    const done = await drive(g, run, (i) => (i === 0 ? undefined : 'HTTP 503'));
    expect(done).toMatchObject({ started: 12, stopped: null });
  });

  it('stops at its deadline: the requests in flight end with the reason', async () => {
    const g = gatedClient();
    const { feed } = feedOf(100);
    const records: WorkerRecord[] = [];
    const done = await runWorkerLevel(g.client, plan({ count: 10, concurrency: 2, levelTimeoutMs: 30 }), feed, (m) => m.type === 'records' && records.push(...m.records), { stop: () => undefined });
    expect(done.stopped).toBe('the level passed its 30 ms limit');
    expect(records).toHaveLength(2);
    expect(records.every((r) => r.error === 'stopped: the level passed its 30 ms limit')).toBe(true);
  });

  it('starts a rate level on its schedule with at most `concurrency` in flight', async () => {
    const g = gatedClient();
    const { feed } = feedOf(100);
    const offsets = [0, 20, 40, 60, 80, 100];
    const run = runWorkerLevel(g.client, plan({ count: 6, concurrency: 2, offsetsMs: offsets }), feed, () => undefined, { stop: () => undefined });
    // Nothing finishes for a while: the cap holds the third request back.
    await new Promise((r) => setTimeout(r, 70));
    expect(g.sentAt).toHaveLength(2);
    const done = await drive(g, run);
    expect(done.started).toBe(6);
    expect(g.maxInFlight).toBe(2);
    // Without a cap the starts follow the offsets.
    const free = gatedClient();
    const { feed: feed2 } = feedOf(100);
    const t0 = performance.now();
    const run2 = runWorkerLevel(free.client, plan({ count: 6, concurrency: 0, offsetsMs: offsets }), feed2, () => undefined, { stop: () => undefined });
    const done2 = await drive(free, run2);
    expect(free.maxInFlight).toBeGreaterThanOrEqual(1);
    // Timers fire to the millisecond.
    expect(done2.lastStartMs).toBeGreaterThanOrEqual(99);
    expect(free.sentAt.map((t) => t - t0).every((t, i) => t >= (offsets[i] ?? 0) - 1)).toBe(true);
  });

  it('asks the main thread for bodies ahead of need', async () => {
    const { feed, messages } = feedOf(1000);
    feed.setLowWater(10);
    await tick();
    const first = await feed.next();
    expect(first.body).toBe('b0');
    expect(messages.filter((m) => m.type === 'need').length).toBeGreaterThanOrEqual(1);
  });
});
