import { describe, expect, it } from 'vitest';
import { GroupCommitter } from './group-commit';

describe('GroupCommitter', () => {
  it('flushes everything submitted in one tick together, and later submissions in the next round', async () => {
    const batches: number[][] = [];
    let release: (() => void) | undefined;
    const gc = new GroupCommitter<number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = [1, 2, 3].map((n) => gc.submit([n]));
    await new Promise((r) => setImmediate(r));
    // While the first flush is in flight, new items queue up for one shared second flush.
    const second = [4, 5].map((n) => gc.submit([n]));
    release?.();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    await gc.drain();
  });

  it('rejects every waiter of a failed batch and recovers for the next one', async () => {
    let fail = true;
    const gc = new GroupCommitter<string>(async () => {
      if (fail) throw new Error('disk full');
    });
    const results = await Promise.allSettled([gc.submit(['a']), gc.submit(['b'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(gc.submit(['c'])).resolves.toBeUndefined();
  });
});
