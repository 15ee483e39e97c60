import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Scenario, ScoreAnswerOutput } from '../../../shared';
import { Field } from '../../components/Field';
import { ErrorState } from '../../components/States';
import { formatPercent } from '../../lib/format';
import { useScoreAnswer } from '../../queries/suites';
import { StatementList } from './StatementList';

/** The findings, wrong claims and verdict of a score, above its statements. */
export function ScoreSummary({ score, label }: { score: ScoreAnswerOutput; label: 'correct' | 'wrong' | null }) {
  const agrees = label === null ? null : score.passed === (label === 'correct');
  return (
    <div className="try-score" data-testid="try-score">
      <p className="try-score-line">
        <span className={`badge ${score.passed ? 'badge-ok' : 'badge-error'}`} data-testid="try-passed">
          {score.passed ? 'pass' : 'fail'}
        </span>{' '}
        score {formatPercent(score.score)} of the findings, by the {score.method}
        {agrees !== null ? <span className={agrees ? 'muted' : 'suite-missed'}> · {agrees ? 'agrees with' : 'disagrees with'} its label “{label}”</span> : null}
      </p>
      <ul className="try-findings">
        {score.matched.map((f) => (
          <li key={f} className="try-found">
            ✓ {f}
          </li>
        ))}
        {score.missed.map((f) => (
          <li key={f} className="suite-missed">
            ✗ missed: {f}
          </li>
        ))}
        {score.must_not_matched.map((w) => (
          <li key={w} className="suite-missed" title={w.startsWith('a fault claimed') ? undefined : `must_not pattern /${w}/i`}>
            ✗ {w.startsWith('a fault claimed') ? w : `wrong claim: “${score.statements.find((st) => st.wrong.includes(w))?.text ?? w}”`}
          </li>
        ))}
      </ul>
      {score.verdict ? (
        <p className={score.verdict.found && score.verdict.correct === false ? 'suite-missed' : 'muted'} data-testid="try-verdict">
          Structured verdict: {score.verdict.found ? (score.verdict.correct === null ? 'found' : score.verdict.correct ? 'right' : 'wrong') : 'none'} — {score.verdict.detail}
        </p>
      ) : null}
    </div>
  );
}

/**
 * "Try an answer" (design §12b): paste an answer to one scenario and see how the rules read it,
 * statement by statement, without a run. A labelled answer of the scenario can be loaded to start from.
 */
export function TryAnswer({ suiteId, scenario }: { suiteId: string; scenario: Scenario }) {
  const score = useScoreAnswer();
  const [answer, setAnswer] = useState('');
  const [label, setLabel] = useState<'correct' | 'wrong' | null>(null);
  const selectId = useId();
  const text = useRef<HTMLTextAreaElement>(null);
  const fixtures = scenario.fixtures ?? [];
  // Opened from a row far above: bring the box into view and put the keyboard in it.
  useEffect(() => {
    text.current?.scrollIntoView({ behavior: 'smooth', block: 'center' });
    text.current?.focus({ preventScroll: true });
  }, []);
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (answer.trim() === '') return;
    score.mutate({ suite_id: suiteId, scenario_id: scenario.scenario_id, answer });
  };
  const load = (index: string) => {
    const fixture = fixtures[Number(index)];
    if (!fixture) return;
    setAnswer(fixture.answer);
    setLabel(fixture.label);
    score.reset();
  };
  return (
    <div className="try-answer" data-testid="try-answer">
      <form onSubmit={submit} className="try-form">
        {fixtures.length > 0 ? (
          <div className="try-fixtures">
            <label htmlFor={selectId}>Start from a labelled answer</label>
            <select id={selectId} defaultValue="" onChange={(e) => load(e.target.value)} data-testid="try-fixture">
              <option value="" disabled>
                {fixtures.length} labelled answers…
              </option>
              {fixtures.map((f, i) => (
                <option key={i} value={i}>
                  {f.label === 'correct' ? '✓' : '✗'} {f.label}: {f.note || f.answer.slice(0, 60)}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <Field label="Answer" hint="Scored as a suite run scores it; nothing is stored. Ctrl+Enter scores it.">
          <textarea
            ref={text}
            value={answer}
            rows={6}
            onChange={(e) => {
              setAnswer(e.target.value);
              setLabel(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
            }}
            placeholder="The orders-api pods are crash-looping: Postgres refuses the login…"
            data-testid="try-text"
          />
        </Field>
        <div className="try-actions">
          <button type="submit" className="button button-primary" disabled={score.isPending || answer.trim() === ''} data-testid="try-submit">
            {score.isPending ? 'Scoring…' : 'Score this answer'}
          </button>
        </div>
      </form>
      {score.isError ? <ErrorState error={score.error} testId="try-error" /> : null}
      {score.isSuccess ? (
        <>
          <ScoreSummary score={score.data} label={label} />
          <h4 className="try-heading">How the rules read it</h4>
          <StatementList statements={score.data.statements} testId="try-statements" />
        </>
      ) : (
        <p className="muted">Each statement of the answer is shown with whether it counted, and why not: negated, dismissed, a question, or quoted tool output.</p>
      )}
    </div>
  );
}
