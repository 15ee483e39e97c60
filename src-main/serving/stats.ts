import type { LatencyStats } from '../../shared';

/**
 * Percentiles of raw samples by linear interpolation between the two nearest ranks: for p in
 * [0, 100] over n sorted samples, the rank is h = (n − 1) · p / 100 and the value
 * x[⌊h⌋] + (h − ⌊h⌋) · (x[⌊h⌋ + 1] − x[⌊h⌋]). This is numpy's default `np.percentile` (method
 * "linear"), which vLLM's benchmark_serving uses, so the figures compare one to one.
 */
export function percentile(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile ${p} is outside [0, 100]`);
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Mean, standard deviation, p50, p90, p95 and p99 of the samples (ms, rounded to 1 µs); null
 * without samples. The deviation is the population one (numpy's np.std, ddof 0), which vLLM's
 * benchmark prints.
 */
export function latencyStats(samples: readonly number[]): LatencyStats | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const values = Array.from(sorted);
  let sum = 0;
  for (const x of values) sum += x;
  const mean = sum / values.length;
  let squares = 0;
  for (const x of values) squares += (x - mean) ** 2;
  return {
    mean: round3(mean),
    std: round3(Math.sqrt(squares / values.length)),
    p50: round3(percentile(values, 50)),
    p90: round3(percentile(values, 90)),
    p95: round3(percentile(values, 95)),
    p99: round3(percentile(values, 99)),
  };
}
