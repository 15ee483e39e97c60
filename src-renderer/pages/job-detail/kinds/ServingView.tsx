import { useMemo } from 'react';
import { Panel, Stat } from '../../../components/Page';
import { useNow } from '../../../components/useNow';
import { formatCount, formatDph, formatMs, formatRate, formatReqRate, formatUsd } from '../../../lib/format';
import { phaseBars } from '../phases';
import { Timeline } from '../parts';
import { useSweepOfJob } from '../SweepOfJob';
import { ThroughputChart, TtftChart } from './ServingCharts';
import { bestRows, servingRows, type ServingRow } from './serving-model';
import type { KindViewProps } from './types';
import './serving.css';

const STATE_WORD: Record<ServingRow['state'], string> = { waiting: 'waiting', running: 'running…', done: '', failed: 'every request failed', 'not-run': 'not run' };

/** A cell that keeps its width while the level runs: the figure, or a muted word. */
function Cell({ row, value }: { row: ServingRow; value: string }) {
  if (row.state === 'done' || (row.state === 'failed' && value !== '—')) return <>{value}</>;
  return <span className="muted">{row.state === 'running' ? '…' : '—'}</span>;
}

/** "84.7 · 88": a latency's p50 and p99 in one cell; the unit (ms) is in the column's header. */
function pair(p50: number | null, p99: number | null): string {
  if (p50 === null && p99 === null) return '—';
  const one = (v: number | null) => (v === null ? '—' : formatMs(v).replace(/ ms$/, ''));
  return `${one(p50)} · ${one(p99)}`;
}

function LevelsTable({ rows, priced }: { rows: readonly ServingRow[]; priced: boolean }) {
  return (
    <div className="table-wrap">
      <table className="table serving-table" data-testid="serving-levels">
        <caption>
          Each level ran its requests with that many in flight. Latencies are per request, p50 (median) · p99; throughput is over the level&apos;s duration.
        </caption>
        <colgroup>
          <col className="sv-c-level" />
          <col className="sv-c-count" />
          <col className="sv-c-rate" />
          <col className="sv-c-count" />
          <col className="sv-c-pair" />
          <col className="sv-c-pair" />
          <col className="sv-c-pair" />
          <col className="sv-c-pair" />
          <col className="sv-c-rate" />
          {priced ? <col className="sv-c-count" /> : null}
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Concurrency</th>
            <th scope="col" className="right">Requests ok / failed</th>
            <th scope="col" className="right">Output tokens/s</th>
            <th scope="col" className="right">Requests/s</th>
            <th scope="col" className="right">TTFT p50 · p99 (ms)</th>
            <th scope="col" className="right">TPOT p50 · p99 (ms)</th>
            <th scope="col" className="right">ITL p50 · p99 (ms)</th>
            <th scope="col" className="right">End-to-end p50 · p99 (ms)</th>
            <th scope="col" className="right">Server tokens/s</th>
            {priced ? <th scope="col" className="right">$ per 1M output tokens</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.concurrency} data-state={r.state} data-concurrency={r.concurrency}>
              <th scope="row" className="num">
                {r.concurrency}
                {STATE_WORD[r.state] ? <span className={`muted serving-state${r.state === 'failed' ? ' error-text' : ''}`}> {STATE_WORD[r.state]}</span> : null}
              </th>
              <td className="num right" title={r.firstError ? `first error: ${r.firstError}` : undefined}>
                <Cell row={r} value={r.requests === null ? '—' : `${formatCount(r.requests)} / ${formatCount(r.failed)}`} />
              </td>
              <td className="num right"><Cell row={r} value={formatRate(r.outputTokensPerS)} /></td>
              <td className="num right"><Cell row={r} value={formatReqRate(r.requestThroughput)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.ttftP50, r.ttftP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.tpotP50, r.tpotP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.itlP50, r.itlP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.e2eP50, r.e2eP99)} /></td>
              <td className="num right"><Cell row={r} value={formatRate(r.serverTokensPerS)} /></td>
              {priced ? <td className="num right"><Cell row={r} value={formatUsd(r.usdPerMillion)} /></td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * serving-benchmark: the phases, the best levels, output tokens/s and TTFT against concurrency,
 * and every level's figures. Levels fill in as they finish (pushed `serving.level` events); every
 * requested level has its row and its place on the charts from the start, so nothing moves.
 */
export function ServingView({ job, events, terminal }: KindViewProps<'serving-benchmark'>) {
  const now = useNow();
  const result = job.result;
  const rows = useMemo(() => servingRows(job.request.concurrency, result, events, terminal), [job.request.concurrency, result, events, terminal]);
  const resultPhases = result?.phases ?? null;
  const bars = useMemo(() => phaseBars(events, resultPhases, terminal ? 0 : now), [events, resultPhases, terminal, now]);
  const { fastest, cheapest } = bestRows(rows);
  const priced = job.request.marketplace;
  // A sweep's job runs on the sweep's rented machine: the sweep prices its tokens at that machine's $/h.
  const ofSweep = useSweepOfJob(job);
  const sweepPrice = !priced && ofSweep?.machine?.dph_total !== undefined ? { usd: ofSweep.cell.usd_per_million_output_tokens, dph: ofSweep.machine.dph_total, gpu: ofSweep.cell.gpu } : null;
  const finished = rows.filter((r) => r.state === 'done' || r.state === 'failed').length;
  const r = job.request;

  return (
    <>
      <div className="grid-2 job-kind-grid">
        <Panel title="Phases">{bars.length > 0 ? <Timeline bars={bars} /> : <p className="muted">{terminal ? 'No phase ran.' : 'No phase has started yet.'}</p>}</Panel>
        <Panel title="Best levels" testId="serving-best">
          <div className="stats">
            <Stat label="Most output tokens/s" value={fastest ? formatRate(fastest.outputTokensPerS) : '—'} hint={fastest ? `at concurrency ${fastest.concurrency}` : finished === 0 ? 'after the first level' : 'no level succeeded'} />
            {sweepPrice ? (
              <Stat
                label="Per 1M output tokens"
                value={sweepPrice.usd !== undefined ? formatUsd(sweepPrice.usd) : '—'}
                hint={sweepPrice.usd !== undefined ? `at the fastest level, on the sweep's ${sweepPrice.gpu} at ${formatDph(sweepPrice.dph)}` : `priced by the sweep when the cell ends (${sweepPrice.gpu} at ${formatDph(sweepPrice.dph)})`}
              />
            ) : (
              <Stat
                label="Cheapest per 1M tokens"
                value={priced ? formatUsd(cheapest?.usdPerMillion) : 'not priced'}
                hint={priced ? (cheapest ? `at concurrency ${cheapest.concurrency}` : 'after the first level') : 'an existing backend has no $/h; rent a machine to price tokens'}
              />
            )}
            <Stat label="TTFT p50 there" value={formatMs(fastest?.ttftP50)} />
            <Stat label="Levels measured" value={`${finished} of ${rows.length}`} hint={`${formatCount(r.requests_per_level, 'request')} each after ${formatCount(r.warmup_requests, 'warm-up request')}`} />
          </div>
          <p className="muted serving-shape">
            Prompts of about {formatCount(r.prompt_tokens, 'token')}, {formatCount(r.output_tokens, 'output token')} per request, streamed from {job.request.marketplace ? 'the rented machine' : ofSweep ? `the sweep's ${ofSweep.cell.gpu} machine` : (job.request.backend_url ?? 'the backend')}.
          </p>
        </Panel>
      </div>
      <div className="grid-2 job-kind-grid">
        <Panel title="Output tokens/s against concurrency">
          <ThroughputChart rows={rows} />
        </Panel>
        <Panel title="Time to first token against concurrency">
          <TtftChart rows={rows} />
        </Panel>
      </div>
      <Panel title="Levels">
        <LevelsTable rows={rows} priced={priced} />
      </Panel>
    </>
  );
}
