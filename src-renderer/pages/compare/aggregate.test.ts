import { describe, expect, it } from 'vitest';
import { clearlyBest, groupBy, spreadOf } from './aggregate';

describe('aggregating runs', () => {
  it('mean, sample spread and count of the values present', () => {
    expect(spreadOf([2, 4, 4, 4, 5, 5, 7, 9])).toMatchObject({ mean: 5, n: 8 });
    expect(spreadOf([2, 4, 4, 4, 5, 5, 7, 9])?.sd).toBeCloseTo(2.138, 3);
    expect(spreadOf([3, null, undefined])).toEqual({ mean: 3, sd: 0, n: 1 });
    expect(spreadOf([null])).toBeNull();
  });

  it('groups by key, first seen first', () => {
    const runs = [{ m: 'a', g: 'x' }, { m: 'b', g: 'x' }, { m: 'a', g: 'x' }];
    const groups = groupBy(runs, (r) => `${r.m}|${r.g}`, (r) => `${r.m} on ${r.g}`);
    expect(groups.map((g) => [g.label, g.runs.length])).toEqual([['a on x', 2], ['b on x', 1]]);
  });

  it('marks a best only when its lead is larger than the spread', () => {
    const clear = [
      { key: 'fast', spread: { mean: 100, sd: 5, n: 12 } },
      { key: 'slow', spread: { mean: 60, sd: 8, n: 12 } },
    ];
    expect(clearlyBest(clear, false)).toBe('fast');
    expect(clearlyBest(clear, true)).toBe('slow');
    const noisy = [
      { key: 'a', spread: { mean: 100, sd: 30, n: 12 } },
      { key: 'b', spread: { mean: 90, sd: 8, n: 12 } },
    ];
    expect(clearlyBest(noisy, false)).toBeNull();
    expect(clearlyBest([{ key: 'only', spread: { mean: 1, sd: 0, n: 3 } }], false)).toBeNull();
    expect(clearlyBest([{ key: 'a', spread: { mean: 1, sd: 0, n: 1 } }, { key: 'b', spread: { mean: 1, sd: 0, n: 1 } }], false)).toBeNull();
  });
});
