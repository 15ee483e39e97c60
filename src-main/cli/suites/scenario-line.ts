import type { JobEvent } from '../../../shared';
import { err, formatDuration } from '../output';

/** One line per scored scenario (stderr, kept above the spinner): pass/fail, score, time, tokens. */
export function scenarioLine(e: JobEvent): string | null {
  if (e.event !== 'scenario.scored') return null;
  const l = e.labels;
  const passed = l.passed === true;
  const mark = passed ? err.green('pass') : err.red('fail');
  const score = typeof l.score === 'number' ? `${Math.round(l.score * 100)}%` : '-';
  const position = typeof l.index === 'number' && typeof l.total === 'number' ? `${l.index}/${l.total}` : '';
  const tokens = typeof l.completion_tokens === 'number' ? ` · ${l.completion_tokens} tokens out` : '';
  const missed = typeof l.missed === 'string' && l.missed ? ` · missed: ${l.missed.split('\n').join('; ')}` : '';
  const wrong = typeof l.must_not_matched === 'string' && l.must_not_matched ? ' · made a wrong claim' : '';
  const failed = e.status === 'error' && e.message ? ` · ${e.message}` : '';
  return `  ${position} ${mark} ${String(l.scenario_id)}${typeof l.run === 'number' && l.run > 1 ? ` (run ${l.run})` : ''}  ${score}  ${formatDuration(e.duration_ms)}${tokens}${missed}${wrong}${failed}`;
}
