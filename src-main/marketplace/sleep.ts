import { abortError } from './errors';

/**
 * Waits `ms`, rejecting with an `aborted` MarketplaceError as soon as `signal` aborts, so retries
 * and polls stop promptly on cancellation.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(null, signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(null, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff: initial × factor^(n-1), capped, optionally jittered by ±jitter. */
export function backoffDelay(
  attempt: number,
  opts: { initialMs: number; factor: number; maxMs: number; jitter?: number },
  random: () => number = Math.random,
): number {
  const base = Math.min(opts.maxMs, opts.initialMs * opts.factor ** Math.max(0, attempt - 1));
  const jitter = opts.jitter ?? 0;
  if (jitter <= 0) return base;
  return Math.max(0, Math.min(opts.maxMs, base * (1 - jitter + 2 * jitter * random())));
}
