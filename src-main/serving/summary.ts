import type { ServingLevel } from '../../shared';
import type { LevelRun } from './load';
import type { RequestSample } from './request';
import { latencyStats } from './stats';

/** A level's figures from its raw request outcomes; failed requests are counted, never timed. */

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** $/h ÷ (output tok/s × 3600) × 10⁶; null without a price or without output. */
export function usdPerMillionOutputTokens(dphTotal: number | null, outputTokensPerS: number): number | null {
  if (dphTotal === null || !(outputTokensPerS > 0)) return null;
  return round((dphTotal / (outputTokensPerS * 3600)) * 1_000_000, 4);
}

export function summarizeLevel(run: LevelRun, dphTotal: number | null): ServingLevel {
  const samples = run.outcomes.filter((o): o is RequestSample => o.ok);
  const failures = run.outcomes.filter((o) => !o.ok);
  const seconds = run.durationMs / 1000;
  let outputTokens = 0;
  let promptTokens = 0;
  let evalCount = 0;
  let evalNs = 0;
  const itl: number[] = [];
  const tpot: number[] = [];
  for (const s of samples) {
    outputTokens += s.outputTokens;
    promptTokens += s.promptTokens;
    if (s.evalCount !== null && s.evalDurationNs !== null && s.evalDurationNs > 0) {
      evalCount += s.evalCount;
      evalNs += s.evalDurationNs;
    }
    for (const gap of s.itlMs) itl.push(gap);
    if (s.tpotMs !== null) tpot.push(s.tpotMs);
  }
  const perS = (x: number): number => (seconds > 0 ? round(x / seconds, 3) : 0);
  const outputTokensPerS = perS(outputTokens);
  return {
    concurrency: run.concurrency,
    requests: samples.length,
    failed: failures.length,
    first_error: failures[0]?.error ?? null,
    duration_s: round(seconds, 4),
    request_throughput: perS(samples.length),
    output_tokens_per_s: outputTokensPerS,
    total_tokens_per_s: perS(outputTokens + promptTokens),
    output_tokens: outputTokens,
    prompt_tokens: promptTokens,
    ttft_ms: latencyStats(samples.map((s) => s.ttftMs)),
    tpot_ms: latencyStats(tpot),
    itl_ms: latencyStats(itl),
    e2e_ms: latencyStats(samples.map((s) => s.e2eMs)),
    server_tokens_per_s: evalNs > 0 ? round(evalCount / (evalNs / 1e9), 3) : null,
    usd_per_million_output_tokens: usdPerMillionOutputTokens(dphTotal, outputTokensPerS),
  };
}

/** The level with the most output tokens/s, and the cheapest per million output tokens (null when unpriced). */
export function bestLevels(levels: readonly ServingLevel[]): { by_throughput: number | null; by_cost: number | null } {
  let byThroughput: ServingLevel | null = null;
  let byCost: ServingLevel | null = null;
  for (const l of levels) {
    if (l.requests > 0 && (!byThroughput || l.output_tokens_per_s > byThroughput.output_tokens_per_s)) byThroughput = l;
    const usd = l.usd_per_million_output_tokens;
    if (usd !== null && (byCost?.usd_per_million_output_tokens == null || usd < byCost.usd_per_million_output_tokens)) byCost = l;
  }
  return { by_throughput: byThroughput?.concurrency ?? null, by_cost: byCost?.concurrency ?? null };
}

/** A finished level as the labels of its `serving.level` event (scalars only), for live front ends. */
export function levelLabels(level: ServingLevel, index: number, of: number): Record<string, number | string | null> {
  return {
    level: index + 1,
    levels: of,
    concurrency: level.concurrency,
    requests: level.requests,
    failed: level.failed,
    first_error: level.first_error,
    duration_s: level.duration_s,
    request_throughput: level.request_throughput,
    output_tokens_per_s: level.output_tokens_per_s,
    total_tokens_per_s: level.total_tokens_per_s,
    ttft_p50_ms: level.ttft_ms?.p50 ?? null,
    ttft_p99_ms: level.ttft_ms?.p99 ?? null,
    tpot_p50_ms: level.tpot_ms?.p50 ?? null,
    tpot_p99_ms: level.tpot_ms?.p99 ?? null,
    itl_p50_ms: level.itl_ms?.p50 ?? null,
    itl_p99_ms: level.itl_ms?.p99 ?? null,
    e2e_p50_ms: level.e2e_ms?.p50 ?? null,
    e2e_p99_ms: level.e2e_ms?.p99 ?? null,
    server_tokens_per_s: level.server_tokens_per_s,
    usd_per_million_output_tokens: level.usd_per_million_output_tokens,
  };
}
