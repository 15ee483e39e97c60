import { createLeanClient, type LeanClient } from './lean-request';
import type { LevelDone, MainToWorker, WorkerBody, WorkerLevelPlan, WorkerRecord, WorkerToMain } from './protocol';
import { STREAM_READER, type StreamReader } from './stream-reader';

/**
 * The serving load generator's thread (design §13b: off the app's event loop). The worker is
 * started from source text (`workerSource()`), not a file: the same code then runs under vitest,
 * from the esbuild bundles, and inside the packaged desktop app (an asar archive a worker cannot
 * load a file from). Each function below is turned into text with Function.prototype.toString, so
 * it may use only its parameters, functions of its own file (names inside one module stay
 * consistent however a bundler renames them) and Node's builtins through
 * process.getBuiltinModule. What it needs from another file comes in `lib`.
 */

export type WorkerLib = { reader: StreamReader; createLeanClient: typeof createLeanClient };
type Post = (message: WorkerToMain) => void;

/** The request bodies the main thread hands over, asked for ahead of need so a due request never waits for one. */
export function bodyFeed(post: Post) {
  const queue: WorkerBody[] = [];
  const waiters: ((body: WorkerBody) => void)[] = [];
  let asked = false;
  let lowWater = 64;
  const askMore = () => {
    if (asked || queue.length >= lowWater) return;
    asked = true;
    post({ type: 'need', count: lowWater * 2 });
  };
  return {
    setLowWater(n: number) {
      lowWater = Math.max(64, n);
      askMore();
    },
    add(bodies: WorkerBody[]) {
      asked = false;
      for (const body of bodies) {
        const waiter = waiters.shift();
        if (waiter) waiter(body);
        else queue.push(body);
      }
      askMore();
    },
    next(): Promise<WorkerBody> {
      const body = queue.shift();
      askMore();
      return body !== undefined ? Promise.resolve(body) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}
export type BodyFeed = ReturnType<typeof bodyFeed>;

/**
 * One level: its warm-up requests as a closed loop, then the measured ones (a closed loop of
 * `concurrency`, or started on the `offsetsMs` schedule with at most `concurrency` in flight).
 * Records stream to the main thread in small batches. The level stops starting requests, and
 * stops those in flight, at its deadline or when its first `failFast` requests all failed.
 */
export async function runWorkerLevel(client: LeanClient, plan: WorkerLevelPlan, feed: BodyFeed, post: Post, control: { stop: (reason: string) => void }): Promise<LevelDone> {
  const active = new Set<(reason: string) => void>();
  let stopped: string | null = null;
  let wake: (() => void) | null = null;
  let failedInARow = 0;
  let anySucceeded = false;
  let firstError: string | null = null;
  const stop = (reason: string) => {
    if (stopped !== null) return;
    stopped = reason;
    wake?.();
    for (const abort of [...active]) abort(`stopped: ${reason}`);
  };
  control.stop = stop;
  const limit = plan.levelTimeoutMs >= 1000 ? `${Math.round(plan.levelTimeoutMs / 1000)} s` : `${plan.levelTimeoutMs} ms`;
  const levelTimer = setTimeout(() => stop(`the level passed its ${limit} limit`), plan.levelTimeoutMs);
  let batch: WorkerRecord[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    if (batch.length > 0) post({ type: 'records', records: batch });
    batch = [];
  };
  let t0 = performance.now();
  let seq = 0;
  let started = 0;
  let firstStartMs: number | null = null;
  let lastStartMs: number | null = null;
  let lastEnd = 0;

  const one = async (measured: boolean): Promise<void> => {
    const item = await feed.next();
    if (stopped !== null) return;
    const mySeq = measured ? seq++ : -1;
    const req = client.send(item, plan.requestTimeoutMs, (t) => {
      if (!measured) return;
      const at = t - t0;
      firstStartMs ??= at;
      lastStartMs = at;
      started++;
    });
    active.add(req.abort);
    const record = await req.done;
    active.delete(req.abort);
    if (record.error !== null && !anySucceeded) {
      failedInARow++;
      firstError ??= record.error;
      if (failedInARow >= plan.failFast) stop(`its first ${failedInARow} requests all failed (the first: ${firstError})`);
    } else if (record.error === null) anySucceeded = true;
    if (!measured) return;
    lastEnd = Math.max(lastEnd, performance.now());
    record.level = plan.level;
    record.seq = mySeq;
    record.startedAtMs -= t0;
    batch.push(record);
    if (batch.length >= 32) flush();
    else flushTimer ??= setTimeout(flush, 50);
  };

  const closedLoop = async (count: number, inFlight: number, measured: boolean, durationMs: number | null): Promise<void> => {
    let launched = 0;
    const loop = async () => {
      while (stopped === null && launched < count && (durationMs === null || performance.now() - t0 < durationMs)) {
        launched++;
        await one(measured);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(inFlight, count)) }, loop));
  };

  const schedule = async (offsets: number[], cap: number): Promise<void> => {
    const running: Promise<void>[] = [];
    const slotWaiters: (() => void)[] = [];
    let inFlight = 0;
    for (const offset of offsets) {
      // Timers keep whole milliseconds and may fire a little early: wait again until the request is due.
      for (let wait = t0 + offset - performance.now(); wait > 0 && stopped === null; wait = t0 + offset - performance.now()) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, wait));
          wake = () => (clearTimeout(timer), resolve());
        });
      }
      if (cap > 0 && inFlight >= cap && stopped === null) await new Promise<void>((resolve) => slotWaiters.push(resolve));
      if (stopped !== null) break;
      inFlight++;
      running.push(
        one(true).finally(() => {
          inFlight--;
          slotWaiters.shift()?.();
        }),
      );
    }
    await Promise.all(running);
  };

  try {
    feed.setLowWater(2 * Math.max(plan.concurrency, plan.warmup));
    if (plan.warmup > 0) await closedLoop(plan.warmup, plan.offsetsMs && plan.concurrency === 0 ? plan.warmup : plan.concurrency, false, null);
    t0 = performance.now();
    if (plan.offsetsMs) await schedule(plan.offsetsMs, plan.concurrency);
    else await closedLoop(plan.count ?? Infinity, plan.concurrency, true, plan.durationMs);
  } finally {
    clearTimeout(levelTimer);
    flush();
  }
  return { level: plan.level, durationMs: lastEnd > t0 ? lastEnd - t0 : 0, started, firstStartMs, lastStartMs, stopped };
}

/** The worker's entry: wires the port to the lean client and the level runner. */
export function servingWorkerMain(lib: WorkerLib): void {
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  if (!parentPort) return;
  const post: Post = (message) => parentPort.postMessage(message);
  const feed = bodyFeed(post);
  const control: { stop: (reason: string) => void } = { stop: () => undefined };
  let client: LeanClient | null = null;
  parentPort.on('message', (message: MainToWorker) => {
    if (message.type === 'init') client = lib.createLeanClient(message.target, message.limits, lib.reader);
    else if (message.type === 'bodies') feed.add(message.bodies);
    else if (message.type === 'cancel') control.stop(message.reason);
    else if (!client) post({ type: 'fatal', message: 'the generator got a level before its target' });
    else {
      runWorkerLevel(client, message.plan, feed, post, control).then(
        (done) => post({ type: 'level-done', done }),
        (err: unknown) => post({ type: 'fatal', message: err instanceof Error ? err.message : String(err) }),
      );
    }
  });
}

/** Declares each function under its own (possibly bundler-renamed) name; `lib` maps the names other files' code uses. */
export function workerSource(): string {
  const reader = Object.entries(STREAM_READER);
  const parts = [...reader.map(([, fn]) => fn), createLeanClient, bodyFeed, runWorkerLevel, servingWorkerMain];
  return [
    // A bundler keeping function names may wrap declarations in __name(); it is harmless here.
    'var __name = (fn) => fn;',
    ...parts.map((fn) => fn.toString()),
    `${servingWorkerMain.name}({ reader: { ${reader.map(([key, fn]) => `${key}: ${fn.name}`).join(', ')} }, createLeanClient: ${createLeanClient.name} });`,
  ].join('\n');
}
