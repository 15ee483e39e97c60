import type { JobEvent, ScenarioResult, VerdictScore } from '../../../../shared';

/** One row of a suite run's table: a scenario's run, scored or still being asked. */
export type SuiteRow = {
  key: string;
  scenario_id: string;
  run: number;
  /** waiting: planned, not started yet; running: being asked; scored: done. */
  state: 'waiting' | 'running' | 'scored';
  passed: boolean | null;
  score: number | null;
  matched: string[];
  missed: string[];
  wrongClaims: string[];
  answer: string | null;
  duration_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  judge: { score: number; passed: boolean; reasoning: string | null } | null;
  /** What decided pass/fail: the judge when one graded it, else the rules. */
  method: 'rules' | 'judge';
  rulesPassed: boolean | null;
  verdict: VerdictScore | null;
  /** How the rules read the answer (from the result; the events carry no statements). */
  statements: NonNullable<ScenarioResult['statements']>;
  error: string | null;
};

const EMPTY = { passed: null, score: null, matched: [], missed: [], wrongClaims: [], answer: null, duration_ms: null, prompt_tokens: null, completion_tokens: null, judge: null, method: 'rules', rulesPassed: null, verdict: null, statements: [], error: null } as const;

function verdictOfLabels(labels: JobEvent['labels']): VerdictScore | null {
  if (typeof labels.verdict_found !== 'boolean') return null;
  return { found: labels.verdict_found, correct: typeof labels.verdict_correct === 'boolean' ? labels.verdict_correct : null, detail: typeof labels.verdict_detail === 'string' ? labels.verdict_detail : '' };
}

const lines = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? v.split('\n') : []);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/**
 * The rows of a suite run: from the result once it has one, else from the `scenario.started` /
 * `scenario.scored` events as they arrive (so rows appear live, and a run that crashed still
 * shows the scenarios it finished).
 */
export function suiteRows(events: readonly JobEvent[], results: readonly ScenarioResult[] | null, planned: readonly { scenario_id: string; run: number }[] = []): SuiteRow[] {
  if (results) {
    return results.map((r) => ({
      key: `${r.scenario_id}#${r.run}`,
      scenario_id: r.scenario_id,
      run: r.run,
      state: 'scored',
      passed: r.passed,
      score: r.score,
      matched: r.matched,
      missed: r.missed,
      wrongClaims: r.must_not_matched,
      answer: r.answer,
      duration_ms: r.duration_ms,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      judge: r.judge ? { score: r.judge.score, passed: r.judge.passed, reasoning: r.judge.reasoning } : null,
      method: r.method ?? 'rules',
      rulesPassed: r.rules_passed ?? null,
      verdict: r.verdict ?? null,
      statements: r.statements ?? [],
      error: r.error ?? null,
    }));
  }
  const rows = new Map<string, SuiteRow>();
  // The planned runs first, so the table has its final height from the start and rows only change state.
  for (const p of planned) {
    const key = `${p.scenario_id}#${p.run}`;
    rows.set(key, { key, scenario_id: p.scenario_id, run: p.run, state: 'waiting', ...EMPTY, matched: [], missed: [], wrongClaims: [], statements: [] });
  }
  for (const e of events) {
    if (e.event !== 'scenario.started' && e.event !== 'scenario.scored') continue;
    const id = String(e.labels.scenario_id ?? '');
    const run = num(e.labels.run) ?? 1;
    const key = `${id}#${run}`;
    if (e.event === 'scenario.started') {
      const existing = rows.get(key);
      if (existing?.state === 'waiting') existing.state = 'running';
      else if (!existing) {
        rows.set(key, { key, scenario_id: id, run, state: 'running', ...EMPTY, matched: [], missed: [], wrongClaims: [], statements: [] });
      }
      continue;
    }
    const judgeScore = num(e.labels.judge_score);
    rows.set(key, {
      key,
      scenario_id: id,
      run,
      state: 'scored',
      passed: e.labels.passed === true,
      score: num(e.labels.score),
      matched: lines(e.labels.matched),
      missed: lines(e.labels.missed),
      wrongClaims: lines(e.labels.must_not_matched),
      answer: typeof e.labels.answer === 'string' ? e.labels.answer : null,
      duration_ms: e.duration_ms,
      prompt_tokens: num(e.labels.prompt_tokens),
      completion_tokens: num(e.labels.completion_tokens),
      judge: judgeScore !== null ? { score: judgeScore, passed: e.labels.judge_passed === true, reasoning: null } : null,
      method: e.labels.method === 'judge' ? 'judge' : 'rules',
      rulesPassed: typeof e.labels.rules_passed === 'boolean' ? e.labels.rules_passed : null,
      verdict: verdictOfLabels(e.labels),
      statements: [],
      error: e.status === 'error' ? (e.message ?? 'the agent gave no answer') : null,
    });
  }
  return [...rows.values()];
}

/** Nearest-rank percentile; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? null;
}

/** The tiles' figures so far, from the rows (the result's summary once it has one). */
export function liveSummary(rows: readonly SuiteRow[]): { passed: number; scored: number; errors: number; p50: number | null; p95: number | null; meanScore: number | null; tokensPerSecond: number | null } {
  const scored = rows.filter((r) => r.state === 'scored');
  const durations = scored.flatMap((r) => (r.duration_ms === null ? [] : [r.duration_ms]));
  const errors = scored.filter((r) => r.error !== null).length;
  return {
    passed: scored.filter((r) => r.passed && r.error === null).length,
    scored: scored.length - errors,
    errors,
    p50: percentile(durations, 50),
    p95: percentile(durations, 95),
    meanScore: scored.length ? scored.reduce((s, r) => s + (r.score ?? 0), 0) / scored.length : null,
    tokensPerSecond: tokensPerSecond(scored),
  };
}

/** Completion tokens over the agents' time, as the result's summary counts them. */
function tokensPerSecond(rows: readonly SuiteRow[]): number | null {
  const timed = rows.filter((r) => r.completion_tokens !== null && r.duration_ms !== null && r.duration_ms > 0);
  const tokens = timed.reduce((s, r) => s + (r.completion_tokens ?? 0), 0);
  const seconds = timed.reduce((s, r) => s + (r.duration_ms ?? 0), 0) / 1000;
  return seconds > 0 && tokens > 0 ? tokens / seconds : null;
}
