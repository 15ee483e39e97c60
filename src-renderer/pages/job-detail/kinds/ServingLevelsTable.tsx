import { formatCount, formatMs, formatPercent, formatRate, formatReqRate, formatUsd } from '../../../lib/format';
import type { ServingRow } from './serving-model';

/**
 * The serving job page's table: one row per level, its columns fixed (figures replace dashes as a
 * run streams in, nothing moves). A level whose answers were shorter than asked, or that stopped
 * early, is marked in its row; the warnings panel says why.
 */

const STATE_WORD: Record<ServingRow['state'], string> = { waiting: 'waiting', running: 'running…', done: '', failed: 'every request failed', 'not-run': 'not run' };

/** A cell that keeps its width while the level runs: the figure, or a muted word. */
function Cell({ row, value }: { row: ServingRow; value: string }) {
  if (row.state === 'done' || (row.state === 'failed' && value !== '—')) return <>{value}</>;
  return <span className="muted">{row.state === 'running' ? '…' : '—'}</span>;
}

/** Requests per second without the unit (the column's header has it). */
const reqs = (v: number | null): string => formatReqRate(v).replace(/ req\/s$/, '');

/** "84.7 · 88": a latency's p50 and p99 in one cell; the unit (ms) is in the column's header. */
function pair(p50: number | null, p99: number | null): string {
  if (p50 === null && p99 === null) return '—';
  const one = (v: number | null) => (v === null ? '—' : formatMs(v).replace(/ ms$/, ''));
  return `${one(p50)} · ${one(p99)}`;
}

function MeanOutput({ row }: { row: ServingRow }) {
  if (row.state !== 'done' || row.meanOutputTokens === null) return <Cell row={row} value="—" />;
  const short = (row.earlyStops ?? 0) > 0;
  return (
    <span className={short ? 'warn-text' : undefined} title={short ? `${formatCount(row.earlyStops, 'request')} stopped before the tokens asked` : undefined}>
      {row.meanOutputTokens.toFixed(0)}
      {short ? ' ⚠' : ''}
    </span>
  );
}

export function ServingLevelsTable({ rows, priced, slo, rate }: { rows: readonly ServingRow[]; priced: boolean; slo: boolean; rate: boolean }) {
  return (
    <div className="table-wrap">
      <table className="table serving-table" data-testid="serving-levels">
        <caption>
          {rate ? 'Each level started requests at that rate (gamma-distributed gaps).' : 'Each level ran its requests with that many in flight.'} Latencies are per request, p50 (median) · p99; throughput is over the level&apos;s
          duration.
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
          <col className="sv-c-count" />
          {slo ? <col className="sv-c-rate" /> : null}
          {priced ? <col className="sv-c-count" /> : null}
        </colgroup>
        <thead>
          <tr>
            <th scope="col">{rate ? 'Request rate' : 'Concurrency'}</th>
            <th scope="col" className="right">Requests ok / failed</th>
            <th scope="col" className="right">Output tokens/s</th>
            <th scope="col" className="right">{rate ? 'Requests/s done (started)' : 'Requests/s'}</th>
            <th scope="col" className="right">TTFT p50 · p99 (ms)</th>
            <th scope="col" className="right">TPOT p50 · p99 (ms)</th>
            <th scope="col" className="right">ITL p50 · p99 (ms)</th>
            <th scope="col" className="right">End-to-end p50 · p99 (ms)</th>
            <th scope="col" className="right">Mean output tokens</th>
            {slo ? <th scope="col" className="right">Goodput req/s (% within SLO)</th> : null}
            {priced ? <th scope="col" className="right">$ per 1M output tokens</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.level} data-state={r.state} data-level={r.level} data-warned={r.warnings.length > 0 ? 'true' : undefined}>
              <th scope="row" className="num">
                {r.label}
                {STATE_WORD[r.state] ? <span className={`muted serving-state${r.state === 'failed' ? ' error-text' : ''}`}> {STATE_WORD[r.state]}</span> : null}
              </th>
              <td className="num right" title={r.firstError ? `first error: ${r.firstError}` : undefined}>
                <Cell row={r} value={r.requests === null ? '—' : `${formatCount(r.requests)} / ${formatCount(r.failed)}`} />
              </td>
              <td className="num right"><Cell row={r} value={formatRate(r.outputTokensPerS)} /></td>
              <td className="num right"><Cell row={r} value={rate && r.achievedRate !== null ? `${reqs(r.requestThroughput)} (${reqs(r.achievedRate)})` : reqs(r.requestThroughput)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.ttftP50, r.ttftP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.tpotP50, r.tpotP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.itlP50, r.itlP99)} /></td>
              <td className="num right"><Cell row={r} value={pair(r.e2eP50, r.e2eP99)} /></td>
              <td className="num right"><MeanOutput row={r} /></td>
              {slo ? <td className="num right"><Cell row={r} value={r.goodput === null ? '—' : `${reqs(r.goodput)} (${formatPercent(r.sloAttainment)})`} /></td> : null}
              {priced ? <td className="num right"><Cell row={r} value={formatUsd(r.usdPerMillion)} /></td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
