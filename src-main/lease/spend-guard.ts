/**
 * The one spend-limit check: `cost() >= limit` fires `onExceeded` once. It runs when a cost changes
 * (the caller calls check()) and at least every 5 s on its own timer, and it reads costs from
 * memory only: writing a record (which a full disk can refuse) is never on its path, so a full disk
 * cannot skip it. A job's machine, a kept machine and a sweep each have one.
 */

/** The longest a reached limit can go unnoticed (design §15: at least every 5 s). */
export const SPEND_CHECK_INTERVAL_MS = 5_000;

export type SpendGuardOptions = {
  /** null: no limit (the guard never fires). A function is read at every check (a setting may change it). */
  limit: number | null | (() => number | null);
  /** The cost now ($), computed in memory. */
  cost: () => number;
  onExceeded: (cost: number, limit: number) => void;
  intervalMs?: number;
  /** Told when onExceeded throws: it never escapes to the timer. */
  onError?: (err: unknown) => void;
};

export class SpendGuard {
  #timer: NodeJS.Timeout | undefined;
  #fired = false;

  constructor(private readonly o: SpendGuardOptions) {}

  get limit(): number | null {
    return typeof this.o.limit === 'function' ? this.o.limit() : this.o.limit;
  }

  /** Whether the limit was reached (once it was, it stays reached). */
  get exceeded(): boolean {
    return this.#fired;
  }

  /** Checks now, then every interval (at most 5 s) until stop(). */
  start(): this {
    if (this.#timer) return this;
    this.check();
    const every = Math.min(SPEND_CHECK_INTERVAL_MS, Math.max(10, this.o.intervalMs ?? SPEND_CHECK_INTERVAL_MS));
    this.#timer = setInterval(() => this.check(), every);
    this.#timer.unref();
    return this;
  }

  /** The check itself: true when the limit is (or was already) reached. */
  check(): boolean {
    if (this.#fired) return true;
    let limit: number | null;
    let cost: number;
    try {
      limit = this.limit;
      if (limit === null) return false;
      cost = this.o.cost();
    } catch (err) {
      this.o.onError?.(err);
      return false;
    }
    if (!(cost >= limit)) return false;
    this.#fired = true;
    try {
      this.o.onExceeded(cost, limit);
    } catch (err) {
      this.o.onError?.(err);
    }
    return true;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
