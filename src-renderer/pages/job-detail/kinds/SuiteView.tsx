import { Fragment, useMemo, useState } from 'react';
import { Panel, Stat } from '../../../components/Page';
import { useNow } from '../../../components/useNow';
import { DASH, formatCount, formatDph, formatDuration, formatPercent, formatRate, formatUsd } from '../../../lib/format';
import { useSuite } from '../../../queries/suites';
import { hrefOf, ROUTES } from '../../../router/routes';
import { phaseBars } from '../phases';
import { Timeline } from '../parts';
import { useSweepOfJob } from '../SweepOfJob';
import { liveSummary, suiteRows, type SuiteRow } from './suite-rows';
import type { KindViewProps } from './types';
import '../../suites/suites.css';

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
  const scored = summary?.total ?? live.scored;
  const costSoFar = summary?.cost_usd ?? job.progress?.cost_usd ?? (job.request.marketplace ? null : 0);
  const perCorrect = summary ? summary.cost_per_correct_usd : costSoFar !== null && passed > 0 ? costSoFar / passed : null;
  // A sweep's job runs on the sweep's rented machine: the sweep costs the cell at that machine's $/h.
  const ofSweep = useSweepOfJob(job);
  const sweepCost = !job.request.marketplace && ofSweep?.machine?.dph_total !== undefined && ofSweep.cell.status === 'succeeded' ? { cell: ofSweep.cell, dph: ofSweep.machine.dph_total } : null;

  return (
    <>
      <Panel title={`Summary: ${suite.data?.name ?? job.request.suite_id}${job.request.repeat > 1 ? `, each scenario ${job.request.repeat} times` : ''}`} testId="suite-summary">
        <div className="stats">
          <Stat label="Accuracy" value={scored > 0 ? formatPercent(passed / scored) : DASH} hint={`${passed} of ${scored} passed${!terminal && total !== null ? ` · ${total - scored} to go` : ''}`} testId="suite-accuracy" />
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
          {summary?.judge ? <Stat label="Judge" value={formatPercent(summary.judge.mean_score)} hint={`${summary.judge.passed} passed by ${job.request.judge?.model ?? 'the judge'} · ${formatDuration(summary.judge.duration_ms)}`} testId="suite-judge" /> : null}
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
                  {job.request.judge ? (
                    <th scope="col" className="right">
                      Judge
                    </th>
                  ) : null}
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
                        <td colSpan={job.request.judge ? 7 : 6}>
                          {r.error ? <p className="suite-missed">The agent gave no answer: {r.error}</p> : null}
                          {r.answer ? (
                            <pre className="suite-answer">
                              {r.answer}
                            </pre>
                          ) : null}
                          {r.matched.length > 0 ? <p className="muted">Matched: {r.matched.join('; ')}</p> : null}
                          {r.missed.length > 0 ? <p className="suite-missed">Missed: {r.missed.join('; ')}</p> : null}
                          {r.wrongClaims.length > 0 ? <p className="suite-missed">Claimed what a correct answer must not: {r.wrongClaims.map((p) => `/${p}/`).join(', ')}</p> : null}
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
          Scoring: a finding counts when any of its patterns matches the answer (case-insensitive); a scenario passes when every finding matches and no forbidden claim does. The suite’s scenarios are on the{' '}
          <a href={hrefOf(ROUTES.suites)}>Suites</a> page.
        </p>
      </Panel>
    </>
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
      {judged ? <td className="right">{row.judge ? `${formatPercent(row.judge.score)}${row.judge.passed ? ' ✓' : ''}` : DASH}</td> : null}
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
