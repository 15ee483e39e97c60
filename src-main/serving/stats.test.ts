import { describe, expect, it } from 'vitest';
import { latencyStats, percentile } from './stats';

describe('percentile (linear interpolation, numpy default)', () => {
  it('matches values computed by hand', () => {
    // n = 4: rank h = 3p/100. p50 → h=1.5 → 20 + 0.5·(30−20) = 25; p90 → h=2.7 → 30 + 0.7·10 = 37;
    // p99 → h=2.97 → 30 + 0.97·10 = 39.7; p0 → 10; p100 → 40.
    const xs = [10, 20, 30, 40];
    expect(percentile(xs, 50)).toBeCloseTo(25, 10);
    expect(percentile(xs, 90)).toBeCloseTo(37, 10);
    expect(percentile(xs, 99)).toBeCloseTo(39.7, 10);
    expect(percentile(xs, 0)).toBe(10);
    expect(percentile(xs, 100)).toBe(40);
  });

  it('takes the middle sample of an odd count and the only sample of one', () => {
    expect(percentile([1, 2, 100], 50)).toBe(2);
    // n = 3, p90 → h = 1.8 → 2 + 0.8·98 = 80.4
    expect(percentile([1, 2, 100], 90)).toBeCloseTo(80.4, 10);
    expect(percentile([7], 99)).toBe(7);
  });

  it('refuses no samples and a p outside [0, 100]', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('latencyStats', () => {
  it('sorts the raw samples itself and gives mean, std, p50, p90, p95, p99', () => {
    // sorted: 1 2 3 4 5 6 7 8 9 10; mean 5.5; population std sqrt(8.25) = 2.8723; p50 h=4.5 → 5.5; p90 h=8.1 → 9.1; p95 h=8.55 → 9.55; p99 h=8.91 → 9.91
    const stats = latencyStats([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    expect(stats).toEqual({ mean: 5.5, std: 2.872, p50: 5.5, p90: 9.1, p95: 9.55, p99: 9.91 });
  });

  it('is null without samples', () => {
    expect(latencyStats([])).toBeNull();
  });
});
