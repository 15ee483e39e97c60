import type { ScenarioResult, SuiteSummaryFigures } from '../../shared';

/** The nearest-rank percentile of sorted values (p in 0–100); null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? null;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A suite run's summary (design §12) from its scenario results and what the run cost. */
export function summarise(results: readonly ScenarioResult[], costUsd: number): SuiteSummaryFigures {
  const total = results.length;
  const passed = results.filter((r) => r.passed).length;
  const durations = results.map((r) => r.duration_ms).sort((a, b) => a - b);
  const timed = results.filter((r) => r.completion_tokens !== null && r.duration_ms > 0);
  const tokens = timed.reduce((sum, r) => sum + (r.completion_tokens ?? 0), 0);
  const seconds = timed.reduce((sum, r) => sum + r.duration_ms, 0) / 1000;
  const judged = results.flatMap((r) => (r.judge ? [r.judge] : []));
  return {
    passed,
    total,
    accuracy: total === 0 ? 0 : round(passed / total, 4),
    mean_score: total === 0 ? 0 : round(results.reduce((sum, r) => sum + r.score, 0) / total, 4),
    latency_ms: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    tokens_per_second: seconds > 0 && tokens > 0 ? round(tokens / seconds, 2) : null,
    cost_usd: costUsd,
    cost_per_correct_usd: passed > 0 ? round(costUsd / passed, 6) : null,
    ...(judged.length > 0
      ? {
          judge: {
            mean_score: round(judged.reduce((s, j) => s + j.score, 0) / judged.length, 4),
            passed: judged.filter((j) => j.passed).length,
            duration_ms: round(judged.reduce((s, j) => s + j.duration_ms, 0), 1),
            prompt_tokens: judged.reduce((s, j) => s + (j.prompt_tokens ?? 0), 0),
            completion_tokens: judged.reduce((s, j) => s + (j.completion_tokens ?? 0), 0),
          },
        }
      : {}),
  };
}
