import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { SIZE_AT_OR_BELOW_USED_MB, SPEED_ABOVE_LIVE_MB, nextMemoryMode, startAdaptiveMemoryMode, type MemoryMode } from './memory-mode';

describe('nextMemoryMode', () => {
  it('leaves memory saving only after a full collection that left a large live heap', () => {
    expect(nextMemoryMode('size', { usedMB: 500 })).toBe('size'); // garbage alone is no reason
    expect(nextMemoryMode('size', { liveAfterFullGcMB: SPEED_ABOVE_LIVE_MB - 1, usedMB: SPEED_ABOVE_LIVE_MB - 1 })).toBe('size');
    expect(nextMemoryMode('size', { liveAfterFullGcMB: SPEED_ABOVE_LIVE_MB, usedMB: SPEED_ABOVE_LIVE_MB })).toBe('speed');
  });

  it('returns to memory saving once the heap in use is small again, with a gap between the two sizes', () => {
    expect(SIZE_AT_OR_BELOW_USED_MB).toBeLessThan(SPEED_ABOVE_LIVE_MB);
    expect(nextMemoryMode('speed', { usedMB: SIZE_AT_OR_BELOW_USED_MB + 1 })).toBe('speed');
    expect(nextMemoryMode('speed', { liveAfterFullGcMB: SIZE_AT_OR_BELOW_USED_MB + 1, usedMB: SIZE_AT_OR_BELOW_USED_MB + 1 })).toBe('speed');
    expect(nextMemoryMode('speed', { usedMB: SIZE_AT_OR_BELOW_USED_MB })).toBe('size');
  });
});

describe('startAdaptiveMemoryMode', () => {
  let stop: (() => void) | undefined;
  afterEach(() => {
    stop?.();
    stop = undefined;
  });

  it('switches to speed when a full collection finds a large live heap, and back once it is released', { timeout: 30_000 }, async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const changes: MemoryMode[] = [];
    stop = startAdaptiveMemoryMode((mode) => changes.push(mode));
    const usedMB = () => v8.getHeapStatistics().used_heap_size / 1024 / 1024;
    const waitFor = async (want: MemoryMode) => {
      for (let i = 0; i < 100 && changes.at(-1) !== want; i++) await new Promise((r) => setTimeout(r, 100));
      expect(changes.at(-1)).toBe(want);
    };

    // Live data well above the threshold, kept reachable, then a full collection.
    const holder: { live?: number[][] } = {};
    holder.live = Array.from({ length: Math.ceil(((SPEED_ABOVE_LIVE_MB + 32) * 1024 * 1024) / 8 / 10_000) }, () => new Array<number>(10_000).fill(1.5));
    gc();
    await waitFor('speed');
    expect(holder.live.length).toBeGreaterThan(0);

    delete holder.live;
    gc();
    expect(usedMB()).toBeLessThanOrEqual(SIZE_AT_OR_BELOW_USED_MB);
    await waitFor('size'); // the 1 s check
    expect(changes).toEqual(['speed', 'size']);
  });
});
