import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer } from './vast-pacing';

/** The pacer on a fake clock: spacing, one create at a time, a 429's penalty and the spacing it teaches. */

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder() {
  const starts: { what: string; at: number }[] = [];
  const call = (what: string, ms = 0) => async () => {
    starts.push({ what, at: Date.now() });
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
    return what;
  };
  return { starts, call };
}

describe('Pacer', () => {
  it('spaces the calls of a route and lets other routes go', async () => {
    const pacer = new Pacer({ routes: { show: { intervalMs: 2_000 }, user: { intervalMs: 0 } } });
    const { starts, call } = recorder();
    const done = Promise.all([pacer.run('show', call('a')), pacer.run('show', call('b')), pacer.run('show', call('c')), pacer.run('user', call('u'))]);
    await vi.runAllTimersAsync();
    await done;
    expect(starts).toEqual([
      { what: 'a', at: 0 },
      { what: 'u', at: 0 },
      { what: 'b', at: 2_000 },
      { what: 'c', at: 4_000 },
    ]);
  });

  it('runs creates one at a time, in order, each after the one before it has ended and the spacing', async () => {
    const pacer = new Pacer({ routes: { create: { intervalMs: 5_000 } } });
    const { starts, call } = recorder();
    // Each create takes 8 s (longer than the spacing): the next starts when it ends.
    const done = Promise.all(['a', 'b', 'c'].map((w) => pacer.run('create', call(w, 8_000))));
    await vi.runAllTimersAsync();
    expect(await done).toEqual(['a', 'b', 'c']);
    expect(starts.map((s) => s.at)).toEqual([0, 8_000, 16_000]);
  });

  it("holds the route for the penalty after a 429, and spaces it by the penalty from then on (Vast's 12 s)", async () => {
    const pacer = new Pacer({ routes: { create: { intervalMs: 5_000, penaltyMs: 12_000 } } });
    const { starts, call } = recorder();
    await pacer.run('create', call('a'));
    expect(pacer.limited('create')).toBe(12_000);
    const done = Promise.all([pacer.run('create', call('b')), pacer.run('create', call('c'))]);
    await vi.runAllTimersAsync();
    await done;
    expect(starts.map((s) => s.at)).toEqual([0, 12_000, 24_000]);
    // A Retry-After longer than the penalty wins.
    expect(pacer.limited('create', 30_000)).toBe(30_000);
  });

  it('a call that gives up waiting keeps its place until the one before it is done', async () => {
    const pacer = new Pacer({ routes: { create: { intervalMs: 0 } } });
    const { starts, call } = recorder();
    const first = pacer.run('create', call('a', 1_000));
    const ac = new AbortController();
    const second = pacer.run('create', call('b'), { signal: ac.signal });
    const third = pacer.run('create', call('c'));
    ac.abort();
    await expect(second).rejects.toMatchObject({ code: 'aborted' });
    await vi.runAllTimersAsync();
    await Promise.all([first, third]);
    expect(starts).toEqual([
      { what: 'a', at: 0 },
      { what: 'c', at: 1_000 },
    ]);
  });

  it("scale multiplies Vast's thresholds (0: off); an explicit route keeps its own figures", () => {
    const pacer = new Pacer({ scale: 0, routes: { destroy: { intervalMs: 7 } } });
    expect(pacer.pacing('create')).toEqual({ intervalMs: 0, penaltyMs: 0, serial: true });
    expect(pacer.pacing('destroy')).toMatchObject({ intervalMs: 7, penaltyMs: 0 });
  });
});
