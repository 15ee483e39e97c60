import { wilsonInterval, type ScenarioPassRate, type ScenarioResult, type SuiteSummaryFigures } from '../../shared';

/** The nearest-rank percentile of sorted values (p in 0–100); null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? null;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

const isError = (r: ScenarioResult): boolean => r.error !== undefined && r.error !== null;

/** Each scenario's pass rate over its repeats, in the order the scenarios first ran. */
export function passRates(results: readonly ScenarioResult[]): ScenarioPassRate[] {
  const rates = new Map<string, ScenarioPassRate>();
  for (const r of results) {
    const rate = rates.get(r.scenario_id) ?? { scenario_id: r.scenario_id, runs: 0, passed: 0, errors: 0, pass_rate: null };
    rate.runs++;
    if (isError(r)) rate.errors++;
    else if (r.passed) rate.passed++;
    rates.set(r.scenario_id, rate);
  }
  return [...rates.values()].map((r) => ({ ...r, pass_rate: r.runs > r.errors ? round(r.passed / (r.runs - r.errors), 4) : null }));
}

function judgeTotals(results: readonly ScenarioResult[]): SuiteSummaryFigures['judge'] {
  const judged = results.filter((r) => r.judge);
  if (judged.length === 0) return undefined;
  const verdicts = judged.map((r) => r.judge as NonNullable<ScenarioResult['judge']>);
  return {
    mean_score: round(verdicts.reduce((s, j) => s + j.score, 0) / verdicts.length, 4),
    passed: verdicts.filter((j) => j.passed).length,
    disagreements: judged.filter((r) => r.rules_passed !== undefined && r.judge?.passed !== r.rules_passed).length,
    duration_ms: round(verdicts.reduce((s, j) => s + j.duration_ms, 0), 1),
    prompt_tokens: verdicts.reduce((s, j) => s + (j.prompt_tokens ?? 0), 0),
    completion_tokens: verdicts.reduce((s, j) => s + (j.completion_tokens ?? 0), 0),
  };
}

/**
 * A suite run's summary (design §12, §12b) from its scenario results and what the run cost.
 * Errors (no answer, scoring or judge failed) are counted apart: accuracy = passed ÷ (total −
 * errors), with its 95% Wilson interval.
 */
export function summarise(results: readonly ScenarioResult[], costUsd: number): SuiteSummaryFigures {
  const total = results.length;
  const errors = results.filter(isError).length;
  const passed = results.filter((r) => r.passed && !isError(r)).length;
  const scored = total - errors;
  const durations = results.map((r) => r.duration_ms).sort((a, b) => a - b);
  const timed = results.filter((r) => r.completion_tokens !== null && r.duration_ms > 0);
  const tokens = timed.reduce((sum, r) => sum + (r.completion_tokens ?? 0), 0);
  const seconds = timed.reduce((sum, r) => sum + r.duration_ms, 0) / 1000;
  const judge = judgeTotals(results);
  return {
    passed,
    total,
    errors,
    accuracy: scored === 0 ? 0 : round(passed / scored, 4),
    accuracy_ci95: wilsonInterval(passed, scored),
    mean_score: scored === 0 ? 0 : round(results.filter((r) => !isError(r)).reduce((sum, r) => sum + r.score, 0) / scored, 4),
    per_scenario: passRates(results),
    latency_ms: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    tokens_per_second: seconds > 0 && tokens > 0 ? round(tokens / seconds, 2) : null,
    cost_usd: costUsd,
    cost_per_correct_usd: passed > 0 ? round(costUsd / passed, 6) : null,
    ...(judge ? { judge } : {}),
  };
}
