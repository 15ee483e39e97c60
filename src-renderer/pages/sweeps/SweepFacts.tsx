import type { SweepConstraints, SweepRecord } from '../../../shared';
import { Notice } from '../../components/States';
import { formatMs, formatPercent, formatUsd } from '../../lib/format';
import { hrefOf, ROUTES } from '../../router/routes';
import { outcomeProblems } from './sweep-outcome';

/** The constraints in words, with their units: "accuracy ≥ 80 %", "≤ $0.05 per correct answer". */
export function constraintWords(c: SweepConstraints | undefined): string[] {
  if (!c) return [];
  const words: string[] = [];
  if (c.min_accuracy !== undefined) words.push(`accuracy ≥ ${formatPercent(c.min_accuracy)}`);
  if (c.max_usd_per_correct !== undefined) words.push(`≤ ${formatUsd(c.max_usd_per_correct)} per correct answer`);
  if (c.max_ttft_p99_ms !== undefined) words.push(`TTFT p99 ≤ ${formatMs(c.max_ttft_p99_ms)}`);
  if (c.max_usd_per_million_output_tokens !== undefined) words.push(`≤ ${formatUsd(c.max_usd_per_million_output_tokens)} per 1M output tokens`);
  return words;
}

/** What the sweep was asked to run and decide by: the suite or serving profile, the judge, the constraints. */
export function SweepAsked({ sweep }: { sweep: SweepRecord }) {
  const r = sweep.request;
  const constraints = constraintWords(r.constraints);
  return (
    <dl className="kv sweep-asked" data-testid="sweep-asked">
      <dt>Runs</dt>
      <dd>
        {[r.suite_id ? `suite ${r.suite_id}${r.repeat > 1 ? ` × ${r.repeat} runs` : ''}` : null, r.serving ? `serving benchmark at concurrency ${r.serving.concurrency.join(', ')}` : null].filter(Boolean).join(' · ')}
      </dd>
      <dt>Judge</dt>
      <dd data-testid="sweep-asked-judge">
        {r.judge ? (
          <>
            <code>{r.judge.model}</code> decides each answer; the rules are reported beside it{r.judge.allow_self_judge ? ' (allowed to grade its own answers)' : ''}
          </>
        ) : (
          <span className="muted">none: the rules decide</span>
        )}
      </dd>
      <dt>Constraints</dt>
      <dd data-testid="sweep-asked-constraints">{constraints.length > 0 ? constraints.join(' · ') : <span className="muted">none: the ranking alone answers</span>}</dd>
    </dl>
  );
}

/** A finished sweep that was not clean: each problem in words, with what to do next. */
export function SweepOutcomeNotice({ sweep }: { sweep: SweepRecord }) {
  const problems = outcomeProblems(sweep);
  if (problems.length === 0) return null;
  return (
    <Notice tone={problems.some((p) => p.overview) ? 'error' : 'warn'} testId="sweep-outcome">
      <p className="sweep-outcome-title">
        <strong>{sweep.status === 'succeeded' ? 'Succeeded, but not cleanly.' : 'Not clean.'}</strong> {problems.length === 1 ? 'One problem' : `${problems.length} problems`} to look at:
      </p>
      <ul className="sweep-outcome-list">
        {problems.map((p) => (
          <li key={p.id} data-testid={`sweep-problem-${p.id}`}>
            {p.text}{' '}
            <span className="sweep-outcome-next">
              Next: {p.next}
              {p.overview ? (
                <>
                  {' '}
                  <a href={hrefOf(ROUTES.overview)} data-testid="sweep-outcome-overview">
                    Open the Overview
                  </a>
                </>
              ) : null}
            </span>
          </li>
        ))}
      </ul>
    </Notice>
  );
}
