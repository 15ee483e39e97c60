type Waiter = { resolve: () => void; reject: (err: unknown) => void };

/**
 * Group commit: items submitted while a flush is running (or within the same tick) are flushed
 * together by the next single call to `flush`, so N concurrent writers share one fsync.
 */
export class GroupCommitter<T> {
  private items: T[] = [];
  private waiters: Waiter[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly flush: (items: T[]) => Promise<void>) {}

  submit(items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.items.push(...items);
      this.waiters.push({ resolve, reject });
      // setImmediate (not a microtask) lets every write started in this tick join the batch.
      this.running ??= new Promise<void>((done) => setImmediate(() => void this.loop().finally(done)));
    });
  }

  private async loop(): Promise<void> {
    try {
      while (this.waiters.length > 0) {
        const items = this.items;
        const waiters = this.waiters;
        this.items = [];
        this.waiters = [];
        try {
          await this.flush(items);
          for (const w of waiters) w.resolve();
        } catch (err) {
          for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  /** Resolves once everything submitted so far has been flushed (or failed). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }
}
