import { Fragment, useMemo, useState } from 'react';
import { Panel, Stat } from '../../../components/Page';
import { useNow } from '../../../components/useNow';
import { DASH, formatCount, formatDph, formatDuration, formatPercent, formatRate, formatUsd } from '../../../lib/format';
import { useSuite } from '../../../queries/suites';
import { hrefOf, ROUTES } from '../../../router/routes';
import { phaseBars } from '../phases';
import { Timeline } from '../parts';
import { useSweepOfJob } from '../SweepOfJob';
import { StatementList } from '../../suites/StatementList';
import { ManifestPanel } from './ManifestPanel';
import { liveSummary, suiteRows, type SuiteRow } from './suite-rows';
import type { KindViewProps } from './types';
import '../../suites/suites.css';

/** "49–94 %": a 95% interval, in percent. */
function intervalText(ci: readonly number[] | undefined): string | null {
  const [lo, hi] = ci ?? [];
  return lo === undefined || hi === undefined ? null : `${Math.round(lo * 100)}–${Math.round(hi * 100)} %`;
}

function VerdictCell({ row }: { row: SuiteRow }) {
  if (row.state !== 'scored' || !row.verdict) return <>{DASH}</>;
  if (!row.verdict.found) return <span className="muted" title={row.verdict.detail}>none</span>;
  if (row.verdict.correct === null) return <span title={row.verdict.detail}>found</span>;
  return (
    <span className={`badge ${row.verdict.correct ? 'badge-ok' : 'badge-error'}`} title={row.verdict.detail}>
      {row.verdict.correct ? 'right' : 'wrong'}
    </span>
  );
}

/** The expanded row: the answer as the rules read it, what was missed or wrongly claimed, the verdict and the judge. */
function AnswerDetail({ row }: { row: SuiteRow }) {
  return (
    <>
      {row.error ? <p className="suite-missed">No score: {row.error}</p> : null}
      {row.statements.length > 0 ? (
        <StatementList statements={row.statements} testId={`suite-statements-${row.key}`} />
      ) : row.answer ? (
        <pre className="suite-answer">{row.answer}</pre>
      ) : null}
      {row.missed.length > 0 ? <p className="suite-missed">Missed: {row.missed.join('; ')}</p> : null}
      {row.wrongClaims.length > 0 ? (
        <p className="suite-missed">
          Claimed what a correct answer must not:{' '}
          {row.wrongClaims.map((p) => (p.startsWith('a fault claimed') ? p : `“${row.statements.find((st) => st.wrong.includes(p))?.text ?? `/${p}/`}”`)).join(', ')}
        </p>
      ) : null}
      {row.verdict ? <p className={row.verdict.found && row.verdict.correct === false ? 'suite-missed' : 'muted'}>Structured verdict: {row.verdict.detail}</p> : null}
      {row.judge ? (
        <p className="muted">
          The judge {row.judge.passed ? 'passed' : 'failed'} it{row.rulesPassed !== null && row.rulesPassed !== row.judge.passed ? ` (the rules ${row.rulesPassed ? 'passed' : 'failed'} it)` : ''}
          {row.judge.reasoning ? `: ${row.judge.reasoning}` : '.'}
        </p>
      ) : null}
    </>
  );
}

/** suite: summary tiles, the phases, and a row per scenario (live as each is scored). */
export function SuiteView({ job, events, terminal }: KindViewProps<'suite'>) {
  const now = useNow();
  const suite = useSuite(job.request.suite_id);
  const result = job.result;
  // Every run the job will make, in its order, once the suite is known: the table never grows while it streams.
  const planned = useMemo(() => {
    const scenarios = suite.data?.scenarios ?? [];
    const wanted = job.request.scenario_ids ? new Set(job.request.scenario_ids) : null;
    return scenarios.filter((s) => !wanted || wanted.has(s.scenario_id)).flatMap((s) => Array.from({ length: job.request.repeat }, (_, i) => ({ scenario_id: s.scenario_id, run: i + 1 })));
  }, [suite.data, job.request.scenario_ids, job.request.repeat]);
  const rows = useMemo(() => suiteRows(events, result?.scenarios ?? null, terminal ? [] : planned), [events, result, planned, terminal]);
  const live = useMemo(() => liveSummary(rows), [rows]);
  const bars = useMemo(() => phaseBars(events, result?.phases ?? null, terminal ? 0 : now), [events, result, terminal, now]);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const titleOf = (scenarioId: string) => suite.data?.scenarios.find((s) => s.scenario_id === scenarioId)?.title ?? scenarioId;
  const total = (job.request.scenario_ids?.length ?? suite.data?.scenarios.length ?? null) === null ? null : (job.request.scenario_ids?.length ?? suite.data?.scenarios.length ?? 0) * job.request.repeat;

  const summary = result?.summary ?? null;
  const passed = summary?.passed ?? live.passed;
  const errors = summary?.errors ?? live.errors;
  const scored = summary ? summary.total - (summary.errors ?? 0) : live.scored;
  const ci = intervalText(summary?.accuracy_ci95);
  const costSoFar = summary?.cost_usd ?? job.progress?.cost_usd ?? (job.request.marketplace ? null : 0);
  const perCorrect = summary ? summary.cost_per_correct_usd : costSoFar !== null && passed > 0 ? costSoFar / passed : null;
  // A sweep's job runs on the sweep's rented machine: the sweep costs the cell at that machine's $/h.
  const ofSweep = useSweepOfJob(job);
  const sweepCost = !job.request.marketplace && ofSweep?.machine?.dph_total !== undefined && ofSweep.cell.status === 'succeeded' ? { cell: ofSweep.cell, dph: ofSweep.machine.dph_total } : null;

  return (
    <>
      <Panel title={`Summary: ${suite.data?.name ?? job.request.suite_id}${job.request.repeat > 1 ? `, each scenario ${job.request.repeat} times` : ''}`} testId="suite-summary">
        <div className="stats">
          <Stat
            label="Accuracy"
            value={scored > 0 ? formatPercent(passed / scored) : DASH}
            hint={`${passed} of ${scored} passed${ci ? ` · 95% interval ${ci}` : ''}${errors > 0 ? ` · ${errors} error${errors === 1 ? '' : 's'} not counted` : ''}${!terminal && total !== null ? ` · ${total - scored - errors} to go` : ''}`}
            testId="suite-accuracy"
          />
          {sweepCost ? (
            <Stat
              label="$ per correct answer"
              value={formatUsd(sweepCost.cell.cost_per_correct_usd)}
              hint={`${formatUsd(sweepCost.cell.cost_usd)} in all, on the sweep's ${sweepCost.cell.gpu} at ${formatDph(sweepCost.dph)}`}
              testId="suite-cost-per-correct"
            />
          ) : (
            <Stat label="$ per correct answer" value={perCorrect === null ? DASH : formatUsd(perCorrect)} hint={costSoFar === null ? 'cost appears once the machine bills' : `${formatUsd(costSoFar)} in all${job.request.marketplace ? '' : ofSweep ? ` so far; the sweep costs it at its ${ofSweep.cell.gpu}'s rate when the cell ends` : ' (existing llmserver)'}`} testId="suite-cost-per-correct" />
          )}
          <Stat label="Latency p50 / p95" value={`${formatDuration(summary?.latency_ms.p50 ?? live.p50)} / ${formatDuration(summary?.latency_ms.p95 ?? live.p95)}`} hint="per answer, agent time" testId="suite-latency" />
          <Stat label="Mean score" value={formatPercent(summary?.mean_score ?? live.meanScore)} hint="findings matched / expected" testId="suite-mean-score" />
          <Stat label="Tokens/s" value={formatRate(summary ? summary.tokens_per_second : live.tokensPerSecond)} hint={`${job.request.model} via ${job.request.agent}`} testId="suite-tps" />
          {summary?.judge ? (
            <Stat
              label="Decided by the judge"
              value={`${summary.judge.passed} passed`}
              hint={`${job.request.judge?.model ?? 'the judge'} · ${summary.judge.disagreements ?? 0} where the rules disagree · ${formatDuration(summary.judge.duration_ms)}`}
              testId="suite-judge"
            />
          ) : null}
        </div>
      </Panel>
      <Panel title="Phases">{bars.length > 0 ? <Timeline bars={bars} /> : <p className="muted">{terminal ? 'No phase ran.' : 'No phase has started yet.'}</p>}</Panel>
      <Panel title="Scenarios" testId="suite-scenarios">
        {rows.length === 0 ? (
          <p className="muted">{terminal ? 'No scenario ran.' : 'Each scenario appears here as it starts, and is scored as it finishes.'}</p>
        ) : (
          <div className="table-wrap">
            <table className="table suite-scenarios" data-testid="suite-scenario-table">
              <thead>
                <tr>
                  <th scope="col">Scenario</th>
                  <th scope="col">Result</th>
                  <th scope="col" className="right">
                    Score
                  </th>
                  <th scope="col">Verdict</th>
                  {job.request.judge ? <th scope="col">Judge</th> : null}
                  <th scope="col" className="right">
                    Duration
                  </th>
                  <th scope="col" className="right">
                    Tokens in / out
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Answer</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <Fragment key={r.key}>
                    <Row row={r} title={titleOf(r.scenario_id)} repeat={job.request.repeat} judged={job.request.judge !== undefined} open={open.has(r.key)} onToggle={() => toggle(r.key)} />
                    {open.has(r.key) ? (
                      <tr data-testid={`suite-answer-${r.key}`}>
                        <td colSpan={job.request.judge ? 8 : 7}>
                          <AnswerDetail row={r} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p className="muted">
          Scoring: a finding counts only in a statement that affirms it (not negated, dismissed, asked or quoted tool output); a scenario passes when every finding counts, no wrong claim is affirmed and its structured verdict, if any, is right
          {job.request.judge ? '; with a judge, the judge decides and the rules are shown beside it' : ''}. Try an answer yourself on the <a href={hrefOf(ROUTES.suites)}>Suites</a> page.
        </p>
      </Panel>
      {summary?.per_scenario && job.request.repeat > 1 ? <PassRates rates={summary.per_scenario} titleOf={titleOf} /> : null}
      <ManifestPanel manifest={result?.manifest} />
    </>
  );
}

function PassRates({ rates, titleOf }: { rates: NonNullable<NonNullable<KindViewProps<'suite'>['job']['result']>['summary']['per_scenario']>; titleOf: (id: string) => string }) {
  return (
    <Panel title="Pass rate over repeats" testId="suite-pass-rates">
      <ul className="pass-rates">
        {rates.map((r) => (
          <li key={r.scenario_id}>
            <span className="pass-rate-title">{titleOf(r.scenario_id)}</span>
            <span>
              {r.pass_rate === null ? DASH : formatPercent(r.pass_rate)} ({r.passed} of {r.runs - r.errors}
              {r.errors > 0 ? `, ${r.errors} error${r.errors === 1 ? '' : 's'}` : ''})
            </span>
          </li>
        ))}
      </ul>
    </Panel>
  );
}

function Row({ row, title, repeat, judged, open, onToggle }: { row: SuiteRow; title: string; repeat: number; judged: boolean; open: boolean; onToggle: () => void }) {
  const running = row.state !== 'scored';
  return (
    <tr className={running ? 'suite-pending' : undefined} data-testid={`suite-row-${row.key}`}>
      <td>
        <div className="scenario-title">{title}</div>
        <div className="muted">
          {row.scenario_id}
          {repeat > 1 ? ` · run ${row.run}` : ''}
        </div>
      </td>
      <td>{row.state === 'waiting' ? <span className="badge">waiting</span> : row.state === 'running' ? <span className="badge badge-info">asking…</span> : row.passed ? <span className="badge badge-ok">pass</span> : <span className="badge badge-error">{row.error ? 'no answer' : 'fail'}</span>}</td>
      <td className="right">{formatPercent(row.score)}</td>
      <td>
        <VerdictCell row={row} />
      </td>
      {judged ? <td>{row.judge ? <span className={`badge ${row.judge.passed ? 'badge-ok' : 'badge-error'}`}>{row.judge.passed ? 'pass' : 'fail'}</span> : DASH}</td> : null}
      <td className="right">{formatDuration(row.duration_ms)}</td>
      <td className="right">
        {row.prompt_tokens === null && row.completion_tokens === null ? DASH : `${formatCount(row.prompt_tokens)} / ${formatCount(row.completion_tokens)}`}
      </td>
      <td>
        {running ? null : (
          <button type="button" className="button button-small" aria-expanded={open} onClick={onToggle} data-testid={`suite-toggle-${row.key}`}>
            {open ? 'Hide answer' : 'Show answer'}
          </button>
        )}
      </td>
    </tr>
  );
}
