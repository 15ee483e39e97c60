import { abortError } from './errors';
import { sleep } from './sleep';

/**
 * Pacing of one key's calls to Vast.ai (reference §A.9, §A.10). Vast limits each endpoint per
 * identity as a minimum interval between requests, answers 429 without Retry-After when it is
 * crossed, and penalises creates for 12 s. So the client spaces each route's calls itself,
 * serialises creates (one in flight per key, so parallel rents queue instead of racing into
 * 429s), and after a 429 holds the route for its penalty and, from then on, spaces it at least
 * that far apart (until it has been quiet for a while).
 */

export type PacedRoute = 'create' | 'show' | 'list' | 'destroy' | 'manage' | 'template' | 'user' | 'search';

export type RoutePacing = {
  /** Least time between the starts of two calls of the route (ms). */
  intervalMs: number;
  /** How long a 429 holds the route (ms): Vast sends no Retry-After. */
  penaltyMs: number;
  /** One call in flight at a time (creates). */
  serial?: boolean;
};

/**
 * Vast's documented thresholds (create 4.5 s with a 12 s penalty, show 2 s, destroy 3 s, manage 1 s,
 * templates 3 s), creates with a margin: spacing a create exactly at the threshold collides as soon
 * as one request travels faster than the one before it.
 */
export const DEFAULT_PACING: Readonly<Record<PacedRoute, RoutePacing>> = {
  create: { intervalMs: 5_000, penaltyMs: 12_000, serial: true },
  show: { intervalMs: 2_000, penaltyMs: 6_000 },
  list: { intervalMs: 1_000, penaltyMs: 6_000 },
  destroy: { intervalMs: 3_000, penaltyMs: 9_000 },
  manage: { intervalMs: 1_000, penaltyMs: 3_000 },
  template: { intervalMs: 3_000, penaltyMs: 9_000 },
  user: { intervalMs: 1_000, penaltyMs: 3_000 },
  // Searches also have their own window (about 10 a minute): VastClient keeps it.
  search: { intervalMs: 0, penaltyMs: 12_000 },
};

/** After this long without a 429, a route learnt from a penalty goes back to its own interval. */
const RELAX_AFTER_MS = 10 * 60_000;

type RouteState = {
  pacing: RoutePacing;
  /** The next call's reserved start (ms). */
  nextAt: number;
  /** A 429's penalty holds the route until this instant (ms): even a call that reserved its start earlier waits. */
  blockedUntil: number;
  /** The spacing in force: the route's interval, or its penalty once a 429 was seen. */
  spacingMs: number;
  lastLimitedAt: number;
  /** The tail of the queue of a serial route. */
  queue: Promise<void>;
};

export type PacerOptions = {
  /** Per route overrides (ms, taken as given). */
  routes?: Partial<Record<PacedRoute, Partial<RoutePacing>>>;
  /** Multiplies Vast's thresholds (the routes not overridden): 0 turns pacing off (tests against a fake), 1 is Vast's. */
  scale?: number;
  now?: () => number;
};

export class Pacer {
  readonly #routes = new Map<PacedRoute, RouteState>();
  readonly #now: () => number;

  constructor(options: PacerOptions = {}) {
    this.#now = options.now ?? Date.now;
    const scale = Math.max(0, options.scale ?? 1);
    for (const [route, base] of Object.entries(DEFAULT_PACING) as [PacedRoute, RoutePacing][]) {
      const over = options.routes?.[route] ?? {};
      const pacing = {
        intervalMs: over.intervalMs ?? base.intervalMs * scale,
        penaltyMs: over.penaltyMs ?? base.penaltyMs * scale,
        serial: over.serial ?? base.serial ?? false,
      };
      this.#routes.set(route, { pacing, nextAt: 0, blockedUntil: 0, spacingMs: pacing.intervalMs, lastLimitedAt: 0, queue: Promise.resolve() });
    }
  }

  /** The pacing of a route as configured (tests and messages). */
  pacing(route: PacedRoute): RoutePacing {
    return { ...this.#state(route).pacing };
  }

  /**
   * Runs `call` when the route allows: after its spacing since the previous call (and any
   * penalty), and for a serial route after the calls queued before it have finished. `onWait`
   * hears how long it waits (for a progress event). An abort while waiting rejects with `aborted`.
   */
  async run<T>(route: PacedRoute, call: () => Promise<T>, opts: { signal?: AbortSignal | undefined; endpoint?: string; onWait?: (ms: number) => void } = {}): Promise<T> {
    const state = this.#state(route);
    if (!state.pacing.serial) {
      await this.#slot(state, opts);
      return call();
    }
    // A FIFO of callers: each waits for the one before it to finish (whatever its outcome).
    // One that gives up waiting still holds its place until those before it are done.
    const previous = state.queue;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    state.queue = previous.then(() => mine);
    try {
      await abortable(previous, opts.signal, opts.endpoint);
      await this.#slot(state, opts);
      return await call();
    } finally {
      done();
    }
  }

  /**
   * A 429 on the route: hold it for the penalty (or `atLeastMs`, a Retry-After, when longer), and
   * space its calls at least the penalty apart from now on. Returns the hold (ms).
   */
  limited(route: PacedRoute, atLeastMs?: number | null): number {
    const state = this.#state(route);
    const now = this.#now();
    const hold = Math.max(state.pacing.penaltyMs, atLeastMs ?? 0);
    state.lastLimitedAt = now;
    state.spacingMs = Math.max(state.pacing.intervalMs, state.pacing.penaltyMs);
    state.blockedUntil = Math.max(state.blockedUntil, now + hold);
    state.nextAt = Math.max(state.nextAt, state.blockedUntil);
    return hold;
  }

  /** Reserves the route's next start and waits for it. */
  async #slot(state: RouteState, opts: { signal?: AbortSignal | undefined; endpoint?: string; onWait?: (ms: number) => void }): Promise<void> {
    const now = this.#now();
    if (state.spacingMs > state.pacing.intervalMs && now - state.lastLimitedAt > RELAX_AFTER_MS) state.spacingMs = state.pacing.intervalMs;
    const at = Math.max(now, state.nextAt, state.blockedUntil);
    state.nextAt = at + state.spacingMs;
    if (at > now) opts.onWait?.(at - now);
    // A penalty that arrives while this call waits holds it too.
    for (let wait = at - now; wait > 0; wait = state.blockedUntil - this.#now()) {
      await sleep(wait, opts.signal).catch(() => {
        throw abortError(opts.endpoint ?? null, opts.signal?.reason);
      });
    }
  }

  #state(route: PacedRoute): RouteState {
    const state = this.#routes.get(route);
    if (!state) throw new Error(`no pacing for route ${route}`);
    return state;
  }
}

/** Waits for `p`, or rejects with `aborted` as soon as the signal aborts. */
function abortable(p: Promise<void>, signal: AbortSignal | undefined, endpoint: string | undefined): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortError(endpoint ?? null, signal.reason));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(endpoint ?? null, signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
