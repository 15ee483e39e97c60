/** Serialises async work per key (e.g. one job's event file: appends and reads never interleave). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      // The last holder cleans up, so the map only holds keys with work in flight.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
