import type { StorageHealth, StoreLogger } from './types';

/**
 * The job store's view of a full disk: once a write hits one, health turns degraded and a timer
 * probes for free space, so health (and a stalled batch of files) recover even when no write comes
 * to try again. Only a write that went through turns it back to ok: a small probe file that fits
 * where a batch does not must not report a full disk as healthy.
 */
export class SpaceWatch {
  /** The last full-disk error while one is unresolved (health says degraded meanwhile). */
  error: unknown = undefined;
  #probe: NodeJS.Timeout | undefined;
  #probing = false;

  constructor(
    private readonly o: {
      dataDir: string;
      logger: StoreLogger;
      retryMs: number;
      /** The batch of files the disk refused, if one is stalled. */
      stalled: () => unknown;
      retryStalled: () => void;
      /** An empty commit: the journal writes and syncs as many blank bytes as the batch it refused. */
      commitEmpty: () => Promise<void>;
      closed: () => boolean;
    },
  ) {}

  /** A write hit a full disk. */
  full(err: unknown): void {
    if (this.error === undefined) {
      this.o.logger.warn(`the data dir ${this.o.dataDir} is out of space: writes are refused until space is freed`, { error: errText(err) });
    }
    this.error = err;
    this.#probe ??= setInterval(() => void this.#probeSpace(), this.o.retryMs).unref();
  }

  /** A write went through: space is back unless a batch is still stalled. */
  maybeBack(): void {
    if (this.error === undefined || this.o.stalled() !== undefined) return;
    this.error = undefined;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.o.logger.info(`the data dir ${this.o.dataDir} has space again: writes are accepted`);
  }

  /** While degraded: a stalled batch is retried, or an empty commit tests the journal. */
  async #probeSpace(): Promise<void> {
    if (this.o.closed() || this.#probing) return;
    if (this.o.stalled() !== undefined) {
      this.o.retryStalled();
      return;
    }
    this.#probing = true;
    try {
      await this.o.commitEmpty();
    } catch {
      // Still full (the commit recorded it), or the store failed: health says so either way.
    } finally {
      this.#probing = false;
    }
  }

  /** The store's health: a failure it cannot undo (given), else a full disk, else ok. */
  health(failure: unknown): StorageHealth {
    if (failure !== undefined) return { status: 'degraded', reason: `the job store in ${this.o.dataDir} failed and refuses writes until restarted: ${errText(failure)}` };
    if (this.error !== undefined) {
      return { status: 'degraded', reason: `the data dir ${this.o.dataDir} has no space left (${errText(this.error)}): new jobs and job updates are refused until space is freed` };
    }
    return { status: 'ok' };
  }

  stop(): void {
    clearInterval(this.#probe);
    this.#probe = undefined;
  }
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
