import type { LeaseCost } from '../../lease/cost';
import { SpendGuard } from '../../lease/spend-guard';
import { JobFailure, type JobContext } from '../types';

/**
 * The running cost of the machine a job holds, as the ledger computes it (machine time and
 * downloads): a `cost.update` info event at a steady cadence and at each phase boundary, the same
 * figures in the job's progress, and the job's spend limit through the one spend-limit check (at
 * least every 5 s, and whenever a cost changes; it reads the ledger in memory, never a record).
 * When the cost reaches `max_cost_usd` the job is stopped (ctx.stop), which aborts its work; the
 * workflow's cleanup then releases the machine and the job fails `budget_exceeded`. Once the work
 * is done (workDone), the limit releases the machine only.
 */

export const DEFAULT_COST_UPDATE_INTERVAL_MS = 30_000;

export type CostMeterOptions = {
  instanceId: number;
  /** null: no spend limit. */
  maxCostUsd: number | null;
  /** Cadence of `cost.update` (default 30 s); the limit is checked at least every 5 s regardless. */
  intervalMs?: number;
  /** Where a failure of the timer's work is reported: it never escapes to the process. */
  logError?: (message: string, fields: Record<string, unknown>) => void;
};

export class CostMeter {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #exceeded: JobFailure | null = null;
  #workDone = false;
  readonly #guard: SpendGuard;

  constructor(
    private readonly ctx: Pick<JobContext, 'emit' | 'setCost' | 'stop' | 'logger'>,
    private readonly lease: { cost(): LeaseCost },
    readonly options: CostMeterOptions,
  ) {
    this.#guard = new SpendGuard({
      limit: options.maxCostUsd,
      cost: () => this.lease.cost().cost_usd,
      onExceeded: (cost, limit) => this.#limitReached(cost, limit),
      onError: (err) => this.#logError('the spend check failed', err),
    });
  }

  /** The failure that stopped the job, once the limit was reached. */
  get exceeded(): JobFailure | null {
    return this.#exceeded;
  }

  /**
   * The job's work is done (a benchmark's answer is in). Reaching the limit from now on still
   * releases the machine (`exceeded` is set, teardown sees it) but no longer stops the job: there
   * is nothing left to stop, and stopping it would throw away a result already paid for.
   */
  workDone(): void {
    this.#workDone = true;
  }

  /** The machine's cost so far (the ledger's). */
  costNow(): LeaseCost {
    return this.lease.cost();
  }

  /** A cost changed (a download was added): the limit is checked now. */
  check(): void {
    if (!this.#stopped) this.#guard.check();
  }

  /** Reports now, then every interval until stop(); the limit is checked at least every 5 s from now. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#guard.start();
    this.#supervised('rented');
    const interval = Math.max(10, this.options.intervalMs ?? DEFAULT_COST_UPDATE_INTERVAL_MS);
    this.#timer = setInterval(() => this.#supervised('interval'), interval);
    this.#timer.unref();
  }

  /** A tick from the timer: whatever goes wrong is logged, never thrown into the process. */
  #supervised(reason: string): void {
    this.tick(reason).catch((err: unknown) => this.#logError('the cost meter failed a tick', err));
  }

  #logError(message: string, err: unknown): void {
    const fields = { instance_id: this.options.instanceId, error: err instanceof Error ? err.message : String(err) };
    try {
      if (this.options.logError) this.options.logError(message, fields);
      else this.ctx.logger.error(message, fields);
    } catch {
      // Nothing left to report to.
    }
  }

  /**
   * One `cost.update` (reason: `rented`, `interval`, `phase:<name>`), then the limit check. The
   * check does not wait for the event to be written (a full disk cannot hold it up). Never throws.
   */
  async tick(reason: string): Promise<void> {
    if (this.#stopped) return;
    const cost = this.lease.cost();
    this.#guard.check();
    const { maxCostUsd, instanceId } = this.options;
    try {
      const download = cost.download_usd > 0 ? ` (incl. $${cost.download_usd.toFixed(4)} of download)` : '';
      await this.ctx.emit({
        event: 'cost.update',
        status: 'info',
        message: `instance ${instanceId}: $${cost.cost_usd.toFixed(6)} so far at $${cost.dph_total}/h${download}${maxCostUsd !== null ? ` (limit $${maxCostUsd})` : ''}`,
        labels: { cost_usd: cost.cost_usd, dph_total: cost.dph_total, download_usd: cost.download_usd, instance_id: instanceId, max_cost_usd: maxCostUsd, reason },
      });
      await this.ctx.setCost({ cost_usd: cost.cost_usd, dph_total: cost.dph_total });
    } catch (err) {
      this.ctx.logger.warn('could not record the running cost', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  #limitReached(cost: number, limit: number): void {
    const c = this.lease.cost();
    const download = c.download_usd > 0 ? ` and $${c.download_usd.toFixed(4)} of download` : '';
    const spent = `instance ${this.options.instanceId} cost $${cost.toFixed(6)} (${c.rented_seconds} s at $${c.dph_total}/h${download}) against a limit of $${limit}`;
    if (this.#workDone) {
      this.#exceeded = new JobFailure('budget_exceeded', `spend limit reached after the work finished: ${spent}; the result is kept and the machine released`);
      void this.ctx
        .emit({ event: 'cost.limit_reached', status: 'info', message: this.#exceeded.message, labels: { cost_usd: cost, max_cost_usd: limit, instance_id: this.options.instanceId } })
        .catch((err: unknown) => this.ctx.logger.warn('could not record the spend limit', { error: err instanceof Error ? err.message : String(err) }));
      return;
    }
    this.#exceeded = new JobFailure('budget_exceeded', `spend limit reached: ${spent}; the job was stopped and its machine released`);
    this.ctx.stop(this.#exceeded);
  }

  stop(): void {
    this.#stopped = true;
    this.#guard.stop();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
