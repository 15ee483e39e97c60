import type { ScoreAnswerOutput } from '../../../shared';

type Statement = ScoreAnswerOutput['statements'][number];

/** What each reason is called on the page, and its badge. */
const REASONS: Record<Statement['reason'], { label: string; tone: string; why: string }> = {
  affirmed: { label: 'affirmed', tone: '', why: 'said as a claim' },
  negated: { label: 'negated', tone: 'badge-warn', why: 'a negation takes it back' },
  dismissed: { label: 'dismissed', tone: 'badge-warn', why: 'ruled out, or called fine' },
  hypothetical: { label: 'hypothesis', tone: 'badge-warn', why: 'a question to check, not a claim' },
  question: { label: 'question', tone: 'badge-warn', why: 'asked, not claimed' },
  'quoted-output': { label: 'quoted output', tone: '', why: 'raw tool output: never counted on its own' },
};

function badgeOf(s: Statement): { label: string; tone: string } {
  if (s.wrong.length > 0) return { label: 'wrong claim', tone: 'badge-error' };
  if (s.counted.length > 0) return { label: 'counts', tone: 'badge-ok' };
  const r = REASONS[s.reason];
  return { label: r.label, tone: r.tone };
}

/**
 * An answer as the rules read it (design §12b): one row per statement, with what it counted for
 * (a finding), what it claimed wrongly, or why it did not count (the cue that negated or dismissed it).
 */
export function StatementList({ statements, testId }: { statements: readonly Statement[]; testId?: string }) {
  if (statements.length === 0) return <p className="muted">The answer has no statements.</p>;
  return (
    <ol className="statement-list" data-testid={testId}>
      {statements.map((s, i) => {
        const badge = badgeOf(s);
        return (
          <li key={i} className={`statement statement-${s.counted.length > 0 ? 'counted' : s.wrong.length > 0 ? 'wrong' : s.reason}`} data-testid={testId ? `${testId}-${i}` : undefined}>
            <span className={`badge ${badge.tone}`} title={REASONS[s.reason].why}>
              {badge.label}
            </span>
            <div className="statement-body">
              {s.reason === 'quoted-output' ? <pre className="statement-quote">{s.text}</pre> : <span className="statement-text">{s.text}</span>}
              {s.cue ? (
                <span className="statement-why">
                  {REASONS[s.reason].why}: “{s.cue}”
                </span>
              ) : null}
              {s.counted.map((f) => (
                <span key={f} className="statement-why statement-finding">
                  → {f}
                </span>
              ))}
              {s.wrong.map((w) => (
                <span key={w} className="statement-why statement-wrong" title={w.startsWith('a fault claimed') ? undefined : `must_not pattern /${w}/i`}>
                  ✗ {w.startsWith('a fault claimed') ? 'claims a fault on a healthy cluster' : 'a claim a correct answer must not make'}
                </span>
              ))}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
