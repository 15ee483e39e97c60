import { useMemo } from 'react';
import type { JobRecordOf, ScoreAnswerOutput } from '../../../shared';
import { ErrorState, Loading, Notice } from '../../components/States';
import { useAllSuites, useAnswerScore } from '../../queries/suites';
import { hrefOf, ROUTES } from '../../router/routes';
import { StatementList } from '../suites/StatementList';
import { ScoreSummary } from '../suites/TryAnswer';
import '../suites/suites.css';
import { findScenario, groundTruthWords, verdictView, type VerdictView } from './verdict-model';

type AskingJob = JobRecordOf<'agentic-agent'> | JobRecordOf<'benchmark'>;

/** The verdict block as read: healthy or not, each cause in the taxonomy with its objects, the fix; or why there is none. */
function VerdictFacts({ view }: { view: VerdictView }) {
  if (view.state !== 'read') {
    return (
      <Notice tone="warn" testId="verdict-missing">
        <strong>{view.state === 'missing' ? 'No structured verdict.' : 'The verdict block is malformed.'}</strong> {view.reason} The rules still read the prose: a suite scores the
        answer’s statements either way.
      </Notice>
    );
  }
  return (
    <div className="verdict-facts" data-testid="verdict-facts">
      <p className="verdict-line">
        <span className={`badge ${view.healthy ? 'badge-ok' : 'badge-error'}`} data-testid="verdict-healthy">
          {view.healthy ? 'healthy' : 'not healthy'}
        </span>{' '}
        {view.healthy ? 'The agent says nothing is wrong with the cluster.' : view.causes.length === 0 ? 'The agent says something is wrong but names no cause.' : `The agent names ${view.causes.length === 1 ? 'one cause' : `${view.causes.length} causes`}:`}
      </p>
      {view.causes.length > 0 ? (
        <ul className="verdict-causes" data-testid="verdict-causes">
          {view.causes.map((c, i) => (
            <li key={i} className="verdict-cause">
              <span className="badge badge-info" title={`category ${c.category}`}>
                {c.words ?? c.category}
              </span>{' '}
              <code className="muted">{c.category}</code>
              {c.words === null ? (
                <span className="badge badge-warn" title="Not one of the shared categories: it cannot match a ground truth">
                  not in the taxonomy
                </span>
              ) : null}
              <span className="verdict-objects">
                {c.objects.length > 0 ? <span className="muted">on</span> : null}
                {c.objects.length === 0 ? (
                  <span className="muted">no object named</span>
                ) : (
                  c.objects.map((o) => (
                    <code key={o} className="verdict-object">
                      {o}
                    </code>
                  ))
                )}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <dl className="kv verdict-fix">
        <dt>Fix</dt>
        <dd data-testid="verdict-fix">{view.fix ?? <span className="muted">none given</span>}</dd>
      </dl>
    </div>
  );
}

/** Where the prose and the verdict block disagree: a suite run fails the answer when either is wrong. */
function Disagreement({ score }: { score: ScoreAnswerOutput }) {
  const proseRight = score.missed.length === 0 && score.must_not_matched.length === 0;
  const verdictRight = score.verdict?.found ? score.verdict.correct : null;
  if (verdictRight === null || verdictRight === undefined || verdictRight === proseRight) return null;
  return (
    <Notice tone="warn" testId="verdict-disagreement">
      The prose and the verdict disagree: the statements {proseRight ? 'find every expected finding' : 'miss or claim wrongly'}, but the verdict block is {verdictRight ? 'right' : 'wrong'}. A suite run counts the answer as passed only when both are right.
    </Notice>
  );
}

/** The answer scored against the scenario's ground truth by the rules, with how they read it. */
function ScenarioScore({ jobId, answer, match }: { jobId: string; answer: string; match: NonNullable<ReturnType<typeof findScenario>> }) {
  const score = useAnswerScore(jobId, { suite_id: match.suite.suite_id, scenario_id: match.scenario.scenario_id, answer });
  const truth = groundTruthWords(match.scenario.verdict);
  return (
    <div className="verdict-score" data-testid="verdict-score">
      <p className="verdict-scenario">
        Scored against scenario{' '}
        <a href={hrefOf(ROUTES.suites)} data-testid="verdict-scenario-link">
          “{match.scenario.title}”
        </a>{' '}
        of suite {match.suite.name}
        {truth ? <span className="muted"> · ground truth: {truth}</span> : <span className="muted"> · it has no ground-truth verdict, so only the findings count</span>}
      </p>
      {score.isError ? (
        <ErrorState error={score.error} onRetry={() => void score.refetch()} testId="verdict-score-error" />
      ) : !score.data ? (
        <Loading height={72} label="Scoring the answer against the scenario…" />
      ) : (
        <>
          <ScoreSummary score={score.data} label={null} />
          <Disagreement score={score.data} />
          <details className="verdict-statements">
            <summary>How the rules read each statement</summary>
            <StatementList statements={score.data.statements} testId="verdict-statements" />
          </details>
        </>
      )}
      <p className="muted note-small" data-testid="verdict-judge">
        No judge graded this answer: a judge decides in suite runs and sweeps (Suites → Run this suite → Judge model). The rules’ reading above is the score.
      </p>
    </div>
  );
}

/** Finds the suite scenario the job asked (same snapshot, same question) and scores the answer against it. */
function ScenarioCheck({ job, answer }: { job: AskingJob; answer: string }) {
  const snapshotId = job.request.snapshot ?? null;
  const all = useAllSuites(snapshotId !== null);
  const match = useMemo(() => findScenario(all.suites, snapshotId, job.request.question), [all.suites, snapshotId, job.request.question]);
  if (snapshotId === null) {
    return (
      <p className="muted note-small" data-testid="verdict-no-scenario">
        Not scored: the job read a live cluster, so there is no ground truth. Ask a suite scenario’s question on its snapshot (or run the suite) to score an answer.
      </p>
    );
  }
  if (all.error) return <ErrorState error={all.error} testId="verdict-suites-error" />;
  if (all.isPending) return <Loading height={72} label="Looking for the suite scenario this question comes from…" />;
  if (!match) {
    return (
      <p className="muted note-small" data-testid="verdict-no-scenario">
        Not scored: no suite scenario asks this question on this snapshot, so there is no ground truth to check the verdict against.
      </p>
    );
  }
  return <ScenarioScore jobId={job.job_id} answer={answer} match={match} />;
}

/**
 * The answer's structured verdict (design §12b), under the answer of agent and benchmark jobs:
 * healthy or not, each cause in the shared taxonomy with the objects it names, the fix; a plain
 * notice when the block is missing or malformed; and, when the job asked a suite scenario, the
 * answer scored against its ground truth by the rules.
 */
export function AnswerVerdict({ job }: { job: AskingJob }) {
  const answer = job.result?.answer ?? null;
  const view = useMemo(() => (answer ? verdictView(answer) : null), [answer]);
  if (!answer || !view) return null;
  return (
    <section className="answer-verdict" aria-label="The answer’s verdict" data-testid="answer-verdict" data-state={view.state}>
      <h3 className="answer-verdict-title">Verdict</h3>
      <VerdictFacts view={view} />
      <ScenarioCheck job={job} answer={answer} />
    </section>
  );
}
