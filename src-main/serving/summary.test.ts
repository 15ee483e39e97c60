import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from './request';
import { bestLevels, summarizeLevel, usdPerMillionOutputTokens } from './summary';

const ok = (ttftMs: number, e2eMs: number, outputTokens: number, itlMs: number[], promptTokens = 100): RequestOutcome => ({
  ok: true,
  ttftMs,
  e2eMs,
  tpotMs: outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null,
  itlMs,
  outputTokens,
  promptTokens,
  evalCount: outputTokens,
  // 20 ms per token on the server's clock
  evalDurationNs: outputTokens * 20e6,
});

describe('summarizeLevel', () => {
  it('computes throughput and latencies from the raw samples, by hand', () => {
    const level = summarizeLevel(
      {
        concurrency: 2,
        durationMs: 2000,
        outcomes: [ok(100, 300, 11, [20, 20]), ok(200, 600, 21, [10, 30, 50]), { ok: false, error: 'HTTP 503 busy' }, { ok: false, error: 'second failure' }],
      },
      null,
    );
    expect(level).toMatchObject({
      concurrency: 2,
      requests: 2,
      failed: 2,
      first_error: 'HTTP 503 busy',
      duration_s: 2,
      request_throughput: 1,
      // (11 + 21) tokens / 2 s
      output_tokens_per_s: 16,
      // (32 + 200) / 2
      total_tokens_per_s: 116,
      output_tokens: 32,
      prompt_tokens: 200,
      // ttft [100, 200]: mean 150, p50 150, p90 190, p99 199
      ttft_ms: { mean: 150, p50: 150, p90: 190, p99: 199 },
      // tpot [(300-100)/10 = 20, (600-200)/20 = 20]
      tpot_ms: { mean: 20, p50: 20, p90: 20, p99: 20 },
      // itl sorted [10, 20, 20, 30, 50]: mean 26, p50 20, p90 h=3.6 → 30 + 0.6·20 = 42, p99 h=3.96 → 49.2
      itl_ms: { mean: 26, p50: 20, p90: 42, p99: 49.2 },
      e2e_ms: { mean: 450, p50: 450 },
      // 32 tokens / (32 × 20 ms)
      server_tokens_per_s: 50,
      usd_per_million_output_tokens: null,
    });
  });

  it('has no latencies when every request failed, and keeps the first error', () => {
    const level = summarizeLevel({ concurrency: 1, durationMs: 500, outcomes: [{ ok: false, error: 'model not found' }] }, 0.5);
    expect(level).toMatchObject({ requests: 0, failed: 1, first_error: 'model not found', ttft_ms: null, tpot_ms: null, itl_ms: null, e2e_ms: null, output_tokens_per_s: 0, usd_per_million_output_tokens: null });
  });

  it('prices a million output tokens from the machine’s $/h', () => {
    // $0.36/h at 100 tok/s: 360,000 tokens per hour → $1 per million
    expect(usdPerMillionOutputTokens(0.36, 100)).toBe(1);
    expect(usdPerMillionOutputTokens(null, 100)).toBeNull();
    expect(usdPerMillionOutputTokens(0.36, 0)).toBeNull();
    const level = summarizeLevel({ concurrency: 1, durationMs: 1000, outcomes: [ok(10, 110, 100, [])] }, 0.36);
    expect(level.usd_per_million_output_tokens).toBe(1);
  });
});

describe('bestLevels', () => {
  const level = (concurrency: number, tps: number, usd: number | null, requests = 4) => ({
    ...summarizeLevel({ concurrency, durationMs: 1000, outcomes: [] }, null),
    requests,
    output_tokens_per_s: tps,
    usd_per_million_output_tokens: usd,
  });
  it('names the fastest level and the cheapest priced one', () => {
    expect(bestLevels([level(1, 50, 2), level(2, 90, 1.1), level(4, 80, 1.2)])).toEqual({ by_throughput: 2, by_cost: 2 });
    expect(bestLevels([level(1, 50, null), level(2, 90, null)])).toEqual({ by_throughput: 2, by_cost: null });
    expect(bestLevels([level(1, 0, null, 0)])).toEqual({ by_throughput: null, by_cost: null });
  });
});
