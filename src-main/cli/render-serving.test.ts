import { describe, expect, it } from 'vitest';
import { servingLevelLine } from './render-serving';

describe('servingLevelLine', () => {
  it('says a finished level in one line, with its price when rented', () => {
    const labels = { concurrency: 4, requests: 31, failed: 1, output_tokens_per_s: 812.345, ttft_p50_ms: 120.04, tpot_p50_ms: 18.2, usd_per_million_output_tokens: 0.1234 };
    expect(servingLevelLine(labels)).toBe('concurrency 4 · 31 ok, 1 failed · 812.3 output tok/s · TTFT p50 120.0 ms · TPOT p50 18.2 ms · $0.12/1M tokens');
  });

  it('shows a dash for a figure the level could not measure', () => {
    expect(servingLevelLine({ concurrency: 1, requests: 0, failed: 2, output_tokens_per_s: 0, ttft_p50_ms: null, tpot_p50_ms: null, usd_per_million_output_tokens: null })).toBe(
      'concurrency 1 · 0 ok, 2 failed · 0.0 output tok/s · TTFT p50 - ms · TPOT p50 - ms',
    );
  });
});
