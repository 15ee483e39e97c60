import type { ServingLevel, ServingLevelSpec, ServingSlo } from '../../shared';
import type { RequestOutcome, RequestSample } from './request';
import { latencyStats } from './stats';

/** A level's figures from its raw request outcomes; failed requests are counted, never timed. */

export type LevelRun = {
  spec: ServingLevelSpec;
  outcomes: RequestOutcome[];
  durationMs: number;
  /** Measured requests started, and when the first and the last were (ms from the level's start). */
  started: number;
  firstStartMs: number | null;
  lastStartMs: number | null;
  /** Why the level stopped starting requests early; null when it ran through. */
  stopped: string | null;
};

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** $/h ÷ (output tok/s × 3600) × 10⁶; null without a price or without output. */
export function usdPerMillionOutputTokens(dphTotal: number | null, outputTokensPerS: number): number | null {
  if (dphTotal === null || !(outputTokensPerS > 0)) return null;
  return round((dphTotal / (outputTokensPerS * 3600)) * 1_000_000, 4);
}

/** Whether one request met every given SLO (a single-token answer has no TPOT and meets a TPOT bound, as in vLLM). */
export function meetsSlo(s: RequestSample, slo: ServingSlo): boolean {
  if (slo.ttft_ms !== undefined && s.ttftMs > slo.ttft_ms) return false;
  if (slo.tpot_ms !== undefined && s.tpotMs !== null && s.tpotMs > slo.tpot_ms) return false;
  if (slo.e2e_ms !== undefined && s.e2eMs > slo.e2e_ms) return false;
  return true;
}

/** What a reader must know before trusting the level's figures. */
function levelWarnings(samples: readonly RequestSample[], failed: number, stopped: string | null): { warnings: string[]; early: number } {
  const warnings: string[] = [];
  const short = samples.filter((s) => s.outputTokens < s.askedTokens);
  if (short.length > 0) {
    const got = short.reduce((a, s) => a + s.outputTokens, 0) / short.length;
    const asked = short.reduce((a, s) => a + s.askedTokens, 0) / short.length;
    warnings.push(
      `${short.length} of ${samples.length} requests stopped before the tokens asked (mean ${got.toFixed(0)} of ${asked.toFixed(0)}): the model ended its answers early, so throughput and TPOT cover shorter answers than asked (ignore_eos needs an engine that honours it: vLLM, SGLang, llama.cpp)`,
    );
  }
  if (stopped !== null) warnings.push(`the level stopped early: ${stopped}`);
  if (failed > 0 && samples.length > 0) warnings.push(`${failed} of ${failed + samples.length} requests failed and are not in the latencies`);
  return { warnings, early: short.length };
}

export function summarizeLevel(run: LevelRun, dphTotal: number | null, slo: ServingSlo | null): ServingLevel {
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
  const good = slo ? samples.filter((s) => meetsSlo(s, slo)).length : 0;
  const span = run.firstStartMs !== null && run.lastStartMs !== null ? (run.lastStartMs - run.firstStartMs) / 1000 : 0;
  const { warnings, early } = levelWarnings(samples, failures.length, run.stopped);
  const rate = run.spec.kind === 'rate' ? run.spec : null;
  return {
    concurrency: run.spec.kind === 'concurrency' ? run.spec.concurrency : null,
    request_rate: rate?.rate ?? null,
    max_concurrency: rate?.maxConcurrency ?? null,
    achieved_request_rate: run.started >= 2 && span > 0 ? round(run.started / span, 3) : null,
    requests: samples.length,
    failed: failures.length,
    first_error: failures[0]?.error ?? null,
    duration_s: round(seconds, 4),
    request_throughput: perS(samples.length),
    output_tokens_per_s: outputTokensPerS,
    total_tokens_per_s: perS(outputTokens + promptTokens),
    output_tokens: outputTokens,
    prompt_tokens: promptTokens,
    mean_output_tokens: samples.length > 0 ? round(outputTokens / samples.length, 2) : null,
    early_stop_requests: early,
    goodput_rps: slo ? perS(good) : null,
    // A failed request does not meet the SLO.
    slo_attainment: slo && run.outcomes.length > 0 ? round(good / run.outcomes.length, 4) : null,
    ttft_ms: latencyStats(samples.map((s) => s.ttftMs)),
    tpot_ms: latencyStats(tpot),
    itl_ms: latencyStats(itl),
    e2e_ms: latencyStats(samples.map((s) => s.e2eMs)),
    server_tokens_per_s: evalNs > 0 ? round(evalCount / (evalNs / 1e9), 3) : null,
    usd_per_million_output_tokens: usdPerMillionOutputTokens(dphTotal, outputTokensPerS),
    warnings,
    stopped: run.stopped,
  };
}

/** A level with goodput this share or more of its requests meeting the SLO counts as meeting it (`best.by_slo`). */
export const SLO_ATTAINMENT_TARGET = 0.99;

/** The fastest level, the cheapest per million output tokens, and the fastest that meets the SLO. */
export function bestLevels(levels: readonly ServingLevel[]) {
  let byThroughput: number | null = null;
  let byCost: number | null = null;
  let bySlo: number | null = null;
  levels.forEach((l, i) => {
    const fastest = byThroughput === null ? null : levels[byThroughput];
    if (l.requests > 0 && (!fastest || l.output_tokens_per_s > fastest.output_tokens_per_s)) byThroughput = i;
    const usd = l.usd_per_million_output_tokens;
    const cheapest = byCost === null ? null : levels[byCost]?.usd_per_million_output_tokens;
    if (usd !== null && (cheapest == null || usd < cheapest)) byCost = i;
    const sloBest = bySlo === null ? null : levels[bySlo];
    if (l.requests > 0 && l.slo_attainment !== null && l.slo_attainment >= SLO_ATTAINMENT_TARGET && (!sloBest || l.output_tokens_per_s > sloBest.output_tokens_per_s)) bySlo = i;
  });
  const at = (i: number | null) => (i === null ? null : (levels[i] ?? null));
  const slo = at(bySlo);
  return {
    by_throughput: at(byThroughput)?.concurrency ?? null,
    by_cost: at(byCost)?.concurrency ?? null,
    by_throughput_level: byThroughput,
    by_cost_level: byCost,
    by_slo:
      slo && bySlo !== null
        ? {
            level: bySlo,
            concurrency: slo.concurrency,
            request_rate: slo.request_rate,
            output_tokens_per_s: slo.output_tokens_per_s,
            goodput_rps: slo.goodput_rps ?? 0,
            slo_attainment: slo.slo_attainment ?? 0,
            usd_per_million_output_tokens: slo.usd_per_million_output_tokens,
          }
        : null,
  };
}

/** A finished level as the labels of its `serving.level` event (scalars only), for live front ends. */
export function levelLabels(level: ServingLevel, index: number, of: number): Record<string, number | string | null> {
  return {
    level: index + 1,
    levels: of,
    concurrency: level.concurrency,
    request_rate: level.request_rate,
    max_concurrency: level.max_concurrency,
    achieved_request_rate: level.achieved_request_rate,
    requests: level.requests,
    failed: level.failed,
    first_error: level.first_error,
    duration_s: level.duration_s,
    request_throughput: level.request_throughput,
    output_tokens_per_s: level.output_tokens_per_s,
    total_tokens_per_s: level.total_tokens_per_s,
    mean_output_tokens: level.mean_output_tokens,
    early_stop_requests: level.early_stop_requests,
    goodput_rps: level.goodput_rps,
    slo_attainment: level.slo_attainment,
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
    warnings: level.warnings.length > 0 ? level.warnings.join(' | ') : null,
    stopped: level.stopped,
  };
}
