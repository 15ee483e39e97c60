import type { SuiteResult } from '../../../shared';
import { formatDuration, formatUsd, out, print, table } from '../output';

/** A finished suite run: one row per scenario run, then the summary figures. */
export function printSuiteResult(result: SuiteResult): void {
  print(
    table(
      ['scenario', 'run', 'result', 'score', 'duration', 'tokens in/out', 'note'],
      result.scenarios.map((s) => [
        s.scenario_id,
        s.run,
        s.passed ? out.green('pass') : out.red('fail'),
        `${Math.round(s.score * 100)}%`,
        formatDuration(s.duration_ms),
        `${s.prompt_tokens ?? '-'} / ${s.completion_tokens ?? '-'}`,
        s.error ?? (s.missed.length > 0 ? `missed: ${s.missed.join('; ')}` : s.must_not_matched.length > 0 ? 'claimed something wrong' : ''),
      ]),
    ),
  );
  print(suiteSummaryLine(result));
  if (result.instance) {
    print(`instance ${result.instance.id}: ${result.instance.released ? out.green('released') : out.yellow('still running')}`);
  }
}

export function suiteSummaryLine(result: SuiteResult): string {
  const s = result.summary;
  const parts = [
    `${s.passed}/${s.total} passed (${Math.round(s.accuracy * 100)}%)`,
    `mean score ${Math.round(s.mean_score * 100)}%`,
    `latency p50 ${s.latency_ms.p50 === null ? '-' : formatDuration(s.latency_ms.p50)} · p95 ${s.latency_ms.p95 === null ? '-' : formatDuration(s.latency_ms.p95)}`,
    s.tokens_per_second === null ? null : `${s.tokens_per_second.toFixed(1)} tokens/s`,
    `cost ${formatUsd(s.cost_usd)}`,
    `per correct answer ${s.cost_per_correct_usd === null ? '-' : formatUsd(s.cost_per_correct_usd)}`,
  ];
  if (s.judge) parts.push(`judge: ${s.judge.passed}/${s.total} passed, mean ${Math.round(s.judge.mean_score * 100)}%`);
  return `${result.model} via ${result.agent}: ${parts.filter((p) => p !== null).join(' · ')}`;
}
