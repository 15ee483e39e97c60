import { JobFailure, type JobContext } from '../types';

/**
 * The running cost of the machine a job holds: a `cost.update` info event at a steady cadence and
 * at each phase boundary (labels `cost_usd`, `dph_total`), the same figures in the job's progress,
 * and the spend limit: when the cost reaches `max_cost_usd` the job is stopped (ctx.stop), which
 * aborts its work; the workflow's cleanup then releases the machine and the job fails
 * `budget_exceeded`. Once the work is done (workDone), the limit releases the machine only.
 */

export const DEFAULT_COST_UPDATE_INTERVAL_MS = 30_000;

export type CostMeterOptions = {
  instanceId: number;
  dphTotal: number;
  /** RFC 3339: when the rent call returned (billing starts there). */
  rentedAt: string;
  /** null: no spend limit. */
  maxCostUsd: number | null;
  intervalMs?: number;
  now?: () => number;
  /** Where a failure of the timer's work is reported: it never escapes to the process. */
  logError?: (message: string, fields: Record<string, unknown>) => void;
};

const round6 = (x: number): number => Math.round(x * 1_000_000) / 1_000_000;

/** dph × hours between two instants (ms), rounded to 1/1,000,000 $ (a test run lasts seconds). */
export function costBetween(dphTotal: number, fromMs: number, toMs: number): number {
  return round6(dphTotal * (Math.max(0, toMs - fromMs) / 3_600_000));
}

export class CostMeter {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #exceeded: JobFailure | null = null;
  #workDone = false;
  /** The model's download on this host ($), once it is known. */
  #downloadUsd = 0;
  readonly #rentedMs: number;
  readonly #now: () => number;

  constructor(
    private readonly ctx: Pick<JobContext, 'emit' | 'setCost' | 'stop' | 'logger'>,
    readonly options: CostMeterOptions,
  ) {
    this.#now = options.now ?? Date.now;
    const parsed = Date.parse(options.rentedAt);
    this.#rentedMs = Number.isNaN(parsed) ? this.#now() : parsed;
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

  /** The model's download is billed too: from now on it is part of the running cost (and the limit). */
  addDownload(usd: number): void {
    if (Number.isFinite(usd) && usd > 0) this.#downloadUsd = Math.round((this.#downloadUsd + usd) * 1_000_000) / 1_000_000;
  }

  /** What the model downloads on this host have cost so far, $. */
  get downloadUsd(): number {
    return this.#downloadUsd;
  }

  /** Machine time so far plus the download, $. */
  costNow(): number {
    return Math.round((costBetween(this.options.dphTotal, this.#rentedMs, this.#now()) + this.#downloadUsd) * 1_000_000) / 1_000_000;
  }

  /** Reports now, then every interval until stop(). */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#supervised('rented');
    const interval = Math.max(10, this.options.intervalMs ?? DEFAULT_COST_UPDATE_INTERVAL_MS);
    this.#timer = setInterval(() => this.#supervised('interval'), interval);
    this.#timer.unref();
  }

  /** A tick from the timer: whatever goes wrong is logged, never thrown into the process. */
  #supervised(reason: string): void {
    this.tick(reason).catch((err: unknown) => {
      const fields = { instance_id: this.options.instanceId, error: err instanceof Error ? err.message : String(err) };
      try {
        if (this.options.logError) this.options.logError('the cost meter failed a tick', fields);
        else this.ctx.logger.error('the cost meter failed a tick', fields);
      } catch {
        // Nothing left to report to.
      }
    });
  }

  /** One `cost.update` (reason: `rented`, `interval`, `phase:<name>`), then the limit check. Never throws. */
  async tick(reason: string): Promise<void> {
    if (this.#stopped) return;
    const cost = this.costNow();
    const { dphTotal, maxCostUsd, instanceId } = this.options;
    try {
      await this.ctx.emit({
        event: 'cost.update',
        status: 'info',
        message: `instance ${instanceId}: $${cost.toFixed(6)} so far at $${dphTotal}/h${this.#downloadUsd > 0 ? ` (incl. $${this.#downloadUsd.toFixed(4)} of download)` : ''}${maxCostUsd !== null ? ` (limit $${maxCostUsd})` : ''}`,
        labels: { cost_usd: cost, dph_total: dphTotal, download_usd: this.#downloadUsd, instance_id: instanceId, max_cost_usd: maxCostUsd, reason },
      });
      await this.ctx.setCost({ cost_usd: cost, dph_total: dphTotal });
    } catch (err) {
      this.ctx.logger.warn('could not record the running cost', { error: err instanceof Error ? err.message : String(err) });
    }
    if (maxCostUsd !== null && cost >= maxCostUsd && !this.#exceeded) {
      const seconds = Math.round((this.#now() - this.#rentedMs) / 1000);
      const download = this.#downloadUsd > 0 ? ` and $${this.#downloadUsd.toFixed(4)} of download` : '';
      const spent = `instance ${instanceId} cost $${cost.toFixed(6)} (${seconds} s at $${dphTotal}/h${download}) against a limit of $${maxCostUsd}`;
      if (this.#workDone) {
        this.#exceeded = new JobFailure('budget_exceeded', `spend limit reached after the work finished: ${spent}; the result is kept and the machine released`);
        await this.ctx
          .emit({ event: 'cost.limit_reached', status: 'info', message: this.#exceeded.message, labels: { cost_usd: cost, max_cost_usd: maxCostUsd, instance_id: instanceId } })
          .catch((err: unknown) => this.ctx.logger.warn('could not record the spend limit', { error: err instanceof Error ? err.message : String(err) }));
        return;
      }
      this.#exceeded = new JobFailure('budget_exceeded', `spend limit reached: ${spent}; the job was stopped and its machine released`);
      this.ctx.stop(this.#exceeded);
    }
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
