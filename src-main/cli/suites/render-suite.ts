import type { ScenarioResult, SuiteResult } from '../../../shared';
import { formatDuration, formatUsd, out, print, table } from '../output';

/** The verdict column: right/wrong/none, from the answer's structured verdict block. */
function verdictCell(s: ScenarioResult): string {
  if (!s.verdict) return '-';
  if (!s.verdict.found) return 'none';
  return s.verdict.correct === null ? 'found' : s.verdict.correct ? out.green('right') : out.red('wrong');
}

function noteOf(s: ScenarioResult): string {
  if (s.error) return s.error;
  const parts: string[] = [];
  if (s.missed.length > 0) parts.push(`missed: ${s.missed.join('; ')}`);
  if (s.must_not_matched.length > 0) parts.push(`claimed: ${s.must_not_matched.join('; ')}`);
  if (s.verdict?.found && s.verdict.correct === false) parts.push(`verdict: ${s.verdict.detail}`);
  if (s.judge && s.rules_passed !== undefined && s.judge.passed !== s.rules_passed) parts.push(`judge ${s.judge.passed ? 'passed' : 'failed'} it, the rules ${s.rules_passed ? 'passed' : 'failed'} it`);
  return parts.join(' · ');
}

/** A finished suite run: one row per scenario run, then the summary figures and the manifest. */
export function printSuiteResult(result: SuiteResult): void {
  const judged = result.scenarios.some((s) => s.judge);
  print(
    table(
      ['scenario', 'run', 'result', 'score', 'verdict', ...(judged ? ['judge'] : []), 'duration', 'tokens in/out', 'note'],
      result.scenarios.map((s) => [
        s.scenario_id,
        s.run,
        s.error ? out.yellow('error') : s.passed ? out.green('pass') : out.red('fail'),
        `${Math.round(s.score * 100)}%`,
        verdictCell(s),
        ...(judged ? [s.judge ? (s.judge.passed ? 'pass' : 'fail') : '-'] : []),
        formatDuration(s.duration_ms),
        `${s.prompt_tokens ?? '-'} / ${s.completion_tokens ?? '-'}`,
        noteOf(s),
      ]),
    ),
  );
  print(suiteSummaryLine(result));
  const m = result.manifest;
  if (m) {
    const hash = m.suite_sha256 ? m.suite_sha256.slice(0, 12) : '-';
    print(out.dim(`manifest: suite ${m.suite_id ?? '-'} sha256 ${hash}… · model digest ${m.model_digest ? `${m.model_digest.slice(0, 12)}…` : '-'} · ${m.backend_api ?? 'backend'} ${m.backend_version ?? '-'} · temperature ${m.temperature ?? '-'} · seed ${m.seed ?? '-'} (--json for all of it)`));
  }
  if (result.instance) {
    print(`instance ${result.instance.id}: ${result.instance.released ? out.green('released') : out.yellow('still running')}`);
  }
}

export function suiteSummaryLine(result: SuiteResult): string {
  const s = result.summary;
  const ci = s.accuracy_ci95 ? ` [95% ${Math.round((s.accuracy_ci95[0] ?? 0) * 100)}–${Math.round((s.accuracy_ci95[1] ?? 0) * 100)}%]` : '';
  const scored = s.total - (s.errors ?? 0);
  const parts = [
    `${s.passed}/${scored} passed (${Math.round(s.accuracy * 100)}%${ci})`,
    s.errors ? `${s.errors} error${s.errors === 1 ? '' : 's'} not counted` : null,
    `mean score ${Math.round(s.mean_score * 100)}%`,
    `latency p50 ${s.latency_ms.p50 === null ? '-' : formatDuration(s.latency_ms.p50)} · p95 ${s.latency_ms.p95 === null ? '-' : formatDuration(s.latency_ms.p95)}`,
    s.tokens_per_second === null ? null : `${s.tokens_per_second.toFixed(1)} tokens/s`,
    `cost ${formatUsd(s.cost_usd)}`,
    `per correct answer ${s.cost_per_correct_usd === null ? '-' : formatUsd(s.cost_per_correct_usd)}`,
  ];
  if (s.judge) parts.push(`judge decided: ${s.judge.passed} passed${s.judge.disagreements ? `, ${s.judge.disagreements} where the rules disagree` : ''}`);
  return `${result.model} via ${result.agent}: ${parts.filter((p) => p !== null).join(' · ')}`;
}
