import type { RequestOutcome } from './request';

/**
 * The load shape of one level: exactly `concurrency` requests in flight (a closed loop: each
 * finished request starts the next) until `requests` have been started, then the last ones drain.
 * `warmup` requests run first the same way and are left out; the level's clock starts when its
 * first measured request is sent. Pure scheduling: what a request is comes from `send`.
 */

export type SendRequest = (index: number, signal: AbortSignal) => Promise<RequestOutcome>;

export type LevelRun = {
  concurrency: number;
  outcomes: RequestOutcome[];
  durationMs: number;
};

export type LevelPlan = {
  concurrency: number;
  requests: number;
  warmup: number;
  /** Numbers the requests of this level (prompts differ per request); the warm-up ones come first. */
  firstIndex?: number;
};

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`aborted: ${String(signal.reason)}`);
}

/** Runs `count` requests with `concurrency` in flight; rejects as soon as `signal` aborts. */
export async function closedLoop(count: number, concurrency: number, firstIndex: number, send: SendRequest, signal: AbortSignal): Promise<RequestOutcome[]> {
  const outcomes: RequestOutcome[] = new Array<RequestOutcome>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      if (signal.aborted) throw abortError(signal);
      const i = next++;
      try {
        outcomes[i] = await send(firstIndex + i, signal);
      } catch (err) {
        if (signal.aborted) throw abortError(signal);
        // A send that throws instead of returning its failure still counts as one failed request.
        outcomes[i] = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
  };
  // Rejects on the first abort: every request shares `signal`, so the others stop at once too.
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return outcomes;
}

export async function runLevel(plan: LevelPlan, send: SendRequest, signal: AbortSignal, now: () => number = () => performance.now()): Promise<LevelRun> {
  if (signal.aborted) throw abortError(signal);
  const first = plan.firstIndex ?? 0;
  if (plan.warmup > 0) await closedLoop(plan.warmup, plan.concurrency, first, send, signal);
  const t0 = now();
  const outcomes = await closedLoop(plan.requests, plan.concurrency, first + plan.warmup, send, signal);
  return { concurrency: plan.concurrency, outcomes, durationMs: now() - t0 };
}
