import { describe, expect, it } from 'vitest';
import type { ServingLevelSpec } from '../../shared';
import type { RequestOutcome } from './request';
import { bestLevels, meetsSlo, summarizeLevel, usdPerMillionOutputTokens, type LevelRun } from './summary';

const ok = (ttftMs: number, e2eMs: number, outputTokens: number, itlMs: number[], over: { promptTokens?: number; askedTokens?: number } = {}): RequestOutcome => ({
  ok: true,
  ttftMs,
  e2eMs,
  tpotMs: outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null,
  itlMs,
  outputTokens,
  promptTokens: over.promptTokens ?? 100,
  askedTokens: over.askedTokens ?? outputTokens,
  evalCount: outputTokens,
  // 20 ms per token on the server's clock
  evalDurationNs: outputTokens * 20e6,
  startedAtMs: 0,
  finishReason: 'length',
});
const failed = (error: string): RequestOutcome => ({ ok: false, error, startedAtMs: 0, ttftMs: null });
const c = (concurrency: number): ServingLevelSpec => ({ kind: 'concurrency', concurrency });
const run = (spec: ServingLevelSpec, outcomes: RequestOutcome[], durationMs: number, over: Partial<LevelRun> = {}): LevelRun => ({
  spec,
  outcomes,
  durationMs,
  started: outcomes.length,
  firstStartMs: 0,
  lastStartMs: 0,
  stopped: null,
  ...over,
});

describe('summarizeLevel', () => {
  it('computes throughput and latencies from the raw samples, by hand', () => {
    const level = summarizeLevel(run(c(2), [ok(100, 300, 11, [20, 20]), ok(200, 600, 21, [10, 30, 50]), failed('HTTP 503 busy'), failed('second failure')], 2000), null, null);
    expect(level).toMatchObject({
      concurrency: 2,
      request_rate: null,
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
      mean_output_tokens: 16,
      early_stop_requests: 0,
      goodput_rps: null,
      slo_attainment: null,
      // ttft [100, 200]: mean 150, std 50, p50 150, p90 190, p95 195, p99 199
      ttft_ms: { mean: 150, std: 50, p50: 150, p90: 190, p95: 195, p99: 199 },
      // tpot [(300-100)/10 = 20, (600-200)/20 = 20]
      tpot_ms: { mean: 20, std: 0, p50: 20, p90: 20, p99: 20 },
      // itl sorted [10, 20, 20, 30, 50]: mean 26, std sqrt((256+36+36+16+576)/5) = sqrt(184), p50 20, p90 h=3.6 → 42, p95 h=3.8 → 46, p99 h=3.96 → 49.2
      itl_ms: { mean: 26, std: Math.round(Math.sqrt(184) * 1000) / 1000, p50: 20, p90: 42, p95: 46, p99: 49.2 },
      e2e_ms: { mean: 450, p50: 450 },
      // 32 tokens / (32 × 20 ms)
      server_tokens_per_s: 50,
      usd_per_million_output_tokens: null,
    });
    expect(level.warnings).toEqual(['2 of 4 requests failed and are not in the latencies']);
  });

  it('has no latencies when every request failed, and keeps the first error', () => {
    const level = summarizeLevel(run(c(1), [failed('model not found')], 500), 0.5, null);
    expect(level).toMatchObject({ requests: 0, failed: 1, first_error: 'model not found', ttft_ms: null, tpot_ms: null, itl_ms: null, e2e_ms: null, output_tokens_per_s: 0, usd_per_million_output_tokens: null, mean_output_tokens: null });
  });

  it('counts answers shorter than asked and says so in a warning', () => {
    const level = summarizeLevel(run(c(1), [ok(10, 100, 40, [], { askedTokens: 128 }), ok(10, 100, 128, [], { askedTokens: 128 }), ok(10, 100, 20, [], { askedTokens: 128 })], 1000), null, null);
    expect(level.early_stop_requests).toBe(2);
    expect(level.mean_output_tokens).toBeCloseTo(188 / 3, 2);
    expect(level.warnings[0]).toMatch(/^2 of 3 requests stopped before the tokens asked \(mean 30 of 128\)/);
  });

  it('counts goodput: requests meeting every SLO per second, attainment over all requests (failures miss it)', () => {
    const outcomes = [ok(50, 200, 11, []), ok(150, 300, 11, []), ok(80, 900, 11, []), failed('x')];
    const level = summarizeLevel(run(c(4), outcomes, 2000), null, { ttft_ms: 100, e2e_ms: 500 });
    // Only the first meets both: 1 good request / 2 s; 1 of 4.
    expect(level.goodput_rps).toBe(0.5);
    expect(level.slo_attainment).toBe(0.25);
    // TPOT: (200-50)/10 = 15 ms; a single-token answer has none and meets any TPOT bound.
    expect(meetsSlo(ok(50, 200, 11, []) as never, { tpot_ms: 14 })).toBe(false);
    expect(meetsSlo(ok(50, 200, 1, []) as never, { tpot_ms: 14 })).toBe(true);
  });

  it('gives a rate level its asked and achieved rate (starts ÷ the time over which they were started)', () => {
    const spec: ServingLevelSpec = { kind: 'rate', rate: 4, burstiness: 1, maxConcurrency: 8 };
    const level = summarizeLevel(run(spec, [ok(10, 20, 2, []), ok(10, 20, 2, [])], 1000, { started: 10, firstStartMs: 0, lastStartMs: 2500 }), null, null);
    expect(level).toMatchObject({ concurrency: null, request_rate: 4, max_concurrency: 8, achieved_request_rate: 4 });
    expect(summarizeLevel(run(spec, [], 0, { started: 1, firstStartMs: 0, lastStartMs: 0 }), null, null).achieved_request_rate).toBeNull();
  });

  it('says why a level stopped early', () => {
    const level = summarizeLevel(run(c(8), [failed('timeout')], 100, { stopped: 'its first 8 requests all failed (the first: timeout)' }), null, null);
    expect(level.stopped).toMatch(/first 8 requests/);
    expect(level.warnings).toEqual(['the level stopped early: its first 8 requests all failed (the first: timeout)']);
  });

  it('prices a million output tokens from the machine’s $/h', () => {
    // $0.36/h at 100 tok/s: 360,000 tokens per hour → $1 per million
    expect(usdPerMillionOutputTokens(0.36, 100)).toBe(1);
    expect(usdPerMillionOutputTokens(null, 100)).toBeNull();
    expect(usdPerMillionOutputTokens(0.36, 0)).toBeNull();
    const level = summarizeLevel(run(c(1), [ok(10, 110, 100, [])], 1000), 0.36, null);
    expect(level.usd_per_million_output_tokens).toBe(1);
  });
});

describe('bestLevels', () => {
  const level = (spec: ServingLevelSpec, tps: number, usd: number | null, attainment: number | null = null, requests = 4) => ({
    ...summarizeLevel(run(spec, [], 1000), null, null),
    requests,
    output_tokens_per_s: tps,
    usd_per_million_output_tokens: usd,
    slo_attainment: attainment,
    goodput_rps: attainment === null ? null : attainment * 4,
  });

  it('names the fastest level and the cheapest priced one, by concurrency and by index', () => {
    expect(bestLevels([level(c(1), 50, 2), level(c(2), 90, 1.1), level(c(4), 80, 1.2)])).toMatchObject({ by_throughput: 2, by_cost: 2, by_throughput_level: 1, by_cost_level: 1, by_slo: null });
    expect(bestLevels([level(c(1), 50, null), level(c(2), 90, null)])).toMatchObject({ by_throughput: 2, by_cost: null, by_cost_level: null });
    expect(bestLevels([level(c(1), 0, null, null, 0)])).toMatchObject({ by_throughput: null, by_cost: null, by_throughput_level: null });
  });

  it('by_slo: the highest throughput among the levels meeting the SLO for ≥ 99% of their requests, with its price', () => {
    const rate = (r: number): ServingLevelSpec => ({ kind: 'rate', rate: r, burstiness: 1, maxConcurrency: null });
    const best = bestLevels([level(rate(1), 40, 3, 1), level(rate(2), 75, 1.6, 0.995), level(rate(4), 120, 1.0, 0.9)]);
    expect(best.by_slo).toEqual({ level: 1, concurrency: null, request_rate: 2, output_tokens_per_s: 75, goodput_rps: 3.98, slo_attainment: 0.995, usd_per_million_output_tokens: 1.6 });
    // Rate levels have no concurrency to name: the indexes do.
    expect(best).toMatchObject({ by_throughput: null, by_throughput_level: 2 });
  });
});
