import { useState } from 'react';
import { isSweepFinished, type SweepCell, type SweepMachine, type SweepRecord, type SweepReportFormat } from '../../../shared';
import { useApi } from '../../bridge';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime } from '../../components/Format';
import { useNow } from '../../components/useNow';
import { Panel, Stat } from '../../components/Page';
import { ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatCount, formatDph, formatInstance, formatMs, formatPercent, formatRate, formatUsd } from '../../lib/format';
import { saveText } from '../../lib/save-file';
import { useSweep, useSweepReport } from '../../queries/sweeps';
import { hrefOf, jobPath } from '../../router/routes';
import { CancelSweepDialog } from './CancelSweepDialog';
import { ParetoChart } from './ParetoChart';
import { Headline, rankedColumns } from './RankedTable';
import { SweepAsked, SweepOutcomeNotice } from './SweepFacts';
import { SweepMatrix, cellMeter } from './SweepMatrix';
import { defaultMetric, type HeatMetric } from './sweep-model';

const MIME: Record<SweepReportFormat, string> = { csv: 'text/csv', md: 'text/markdown', json: 'application/json' };

function Exports({ sweepId }: { sweepId: string }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const save = async (format: SweepReportFormat) => {
    setError(null);
    try {
      const report = await api.getSweepReport({ sweep_id: sweepId, format });
      await saveText(api, `${sweepId}.${format}`, typeof report === 'string' ? report : JSON.stringify(report, null, 2), MIME[format]);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div className="sweep-exports" role="group" aria-label="Export the report">
      <button type="button" className="button" onClick={() => void save('md')} data-testid="sweep-export-md">
        Markdown
      </button>
      <button type="button" className="button" onClick={() => void save('csv')} data-testid="sweep-export-csv">
        CSV
      </button>
      <button type="button" className="button" onClick={() => void save('json')} data-testid="sweep-export-json">
        JSON
      </button>
      {error ? <span className="field-error" role="alert">{error}</span> : null}
    </div>
  );
}

function CellDetail({ sweep, index }: { sweep: SweepRecord; index: number | null }) {
  const cell: SweepCell | undefined = index === null ? undefined : sweep.cells[index];
  if (!cell) return <p className="muted sweep-cell-detail-empty">Choose a cell of the matrix to see its jobs, figures and cost.</p>;
  const meter = cellMeter(sweep, cell);
  return (
    <div className="sweep-cell-detail" data-testid="sweep-cell-detail">
      <h3>
        {cell.model} on {cell.gpu}
      </h3>
      <dl className="sweep-facts">
        <dt>Status</dt>
        <dd data-testid="sweep-cell-status">{cell.status.replace('_', ' ')}</dd>
        {cell.reason ? (
          <>
            <dt>Why</dt>
            <dd>{cell.reason}</dd>
          </>
        ) : null}
        <dt>Accuracy</dt>
        <dd>
          {cell.accuracy !== undefined
            ? `${formatPercent(cell.accuracy)} (${cell.passed ?? 0} of ${(cell.total ?? 0) - (cell.errors ?? 0)} correct${cell.errors ? `, ${cell.errors} errors not counted` : ''})${cell.accuracy_ci95 ? ` · 95% interval ${formatPercent(cell.accuracy_ci95[0])}–${formatPercent(cell.accuracy_ci95[1])}` : ''}${cell.rank_tier !== undefined ? ` · tier ${cell.rank_tier}` : ''}`
            : '–'}
        </dd>
        <dt>Cost</dt>
        <dd>
          {meter ? `running at ${formatDph(meter.dph)}: counted in the sweep's spend above` : formatUsd(cell.cost_usd)}
          {cell.cost_per_correct_usd !== undefined ? ` · ${formatUsd(cell.cost_per_correct_usd)} per correct answer (the suite’s ${formatUsd(cell.suite_cost_usd)} only)` : ''}
        </dd>
        <dt>Serving</dt>
        <dd>
          {cell.serving_error ? <span className="suite-missed">{cell.serving_error} </span> : null}
          {cell.output_tokens_per_s !== undefined
            ? `${formatRate(cell.output_tokens_per_s)} · TTFT p50 ${formatMs(cell.ttft_p50_ms)} · ${formatUsd(cell.usd_per_million_output_tokens)} per 1M output tokens`
            : '–'}
        </dd>
        {cell.tags ? (
          <>
            <dt>Per tag</dt>
            <dd>
              {Object.entries(cell.tags)
                .map(([tag, t]) => `${tag} ${formatPercent(t.accuracy)}`)
                .join(' · ')}
            </dd>
          </>
        ) : null}
        <dt>Jobs</dt>
        <dd>
          {cell.job_ids.length === 0
            ? 'none'
            : cell.job_ids.map((id) => (
                <a key={id} className="code-id sweep-job-link" href={hrefOf(jobPath(id))}>
                  {id.slice(0, 8)}
                </a>
              ))}
        </dd>
      </dl>
    </div>
  );
}

/**
 * The sweep's spend, live: what its released machines cost, plus each machine still held at its
 * rate since it was rented (the one running cost on this screen; frozen while the server is not heard).
 */
function SweepSpend({ sweep }: { sweep: SweepRecord }) {
  const now = useNow();
  const live = [...sweep.earlier_machines, ...sweep.machines].reduce((sum, m) => {
    if (m.status === 'running' && m.dph_total !== undefined && m.rented_at) return sum + (m.dph_total * Math.max(0, now - Date.parse(m.rented_at))) / 3_600_000;
    return sum + m.cost_usd;
  }, 0);
  return <Money usd={Math.max(live, sweep.spend_usd)} />;
}

function machineColumns(): Column<SweepMachine>[] {
  return [
    { id: 'gpu', header: 'GPU', cell: (m) => m.gpu },
    { id: 'instance', header: 'Instance', cell: (m) => (m.instance_id !== undefined ? <span className="code-id">{formatInstance(m.instance_id)}</span> : <span className="muted">–</span>) },
    { id: 'status', header: 'State', cell: (m) => <span title={m.release_error ?? m.reason}>{m.status}</span> },
    { id: 'dph', header: 'Rate', align: 'right', cell: (m) => formatDph(m.dph_total) },
    {
      id: 'cost',
      header: 'Cost',
      align: 'right',
      cell: (m) => (m.status === 'running' && m.dph_total !== undefined ? <span className="muted">billing, in the spend above</span> : <Money usd={m.cost_usd} />),
    },
  ];
}

/** One sweep: live matrix, cell detail, spend, machines, the ranked table, the Pareto chart, export. */
export function SweepDetail({ sweepId }: { sweepId: string }) {
  const sweep = useSweep(sweepId);
  const report = useSweepReport(sweepId);
  const [metric, setMetric] = useState<HeatMetric | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [confirming, setConfirming] = useState(false);

  if (sweep.isError) return <ErrorState error={sweep.error} onRetry={() => void sweep.refetch()} testId="sweep-error" />;
  if (sweep.isPending) return <Loading height={420} label="Loading the sweep…" />;
  const s = sweep.data;
  const shown = metric ?? defaultMetric(s);
  const servingOnly = s.request.suite_id === undefined;
  const finished = isSweepFinished(s.status);
  const done = s.cells.filter((c) => c.status !== 'pending' && c.status !== 'running').length;
  const held = s.machines.filter((m) => m.status === 'running' || m.status === 'renting');
  const spendShare = Math.min(1, s.spend_usd / s.max_total_cost_usd);

  return (
    <div className="sweep-detail" data-testid="sweep-detail" data-status={s.status}>
      <div className="sweep-head">
        <div className="sweep-title">
          <h2>{s.name}</h2>
          <StatusBadge status={s.status} />
          <span className="muted code-id">{s.sweep_id}</span>
        </div>
        <div className="sweep-actions">
          <Exports sweepId={sweepId} />
          {!finished ? (
            <button type="button" className="button button-danger" onClick={() => setConfirming(true)} data-testid="sweep-cancel">
              Cancel sweep
            </button>
          ) : null}
        </div>
      </div>
      {s.error ? <p className="sweep-error-line" data-testid="sweep-error-line">{s.error}</p> : null}
      <SweepOutcomeNotice sweep={s} />
      <div className="stats sweep-stats">
        <Stat label="Cells finished" value={`${done} of ${formatCount(s.cells.length)}`} testId="sweep-progress" />
        <Stat
          label="Spend"
          value={
            <>
              <SweepSpend sweep={s} /> <span className="muted">of {formatUsd(s.max_total_cost_usd)}</span>
            </>
          }
          hint={
            <span className="spend-bar" aria-hidden="true">
              <span style={{ width: `${(spendShare * 100).toFixed(1)}%` }} />
            </span>
          }
          testId="sweep-spend"
        />
        <Stat label="Machines held now" value={held.length === 0 ? 'none' : held.map((m) => m.gpu).join(', ')} hint={`${s.request.machines_at_once} at a time`} testId="sweep-held" />
        <Stat label="Started" value={<RelativeTime iso={s.started_at ?? s.created_at} />} />
      </div>
      <SweepAsked sweep={s} />

      <Panel
        title="Matrix"
        actions={
          <ToggleGroup
            label="Colour the matrix by"
            value={shown}
            onChange={setMetric}
            options={[
              { value: 'accuracy', label: 'Accuracy', disabled: servingOnly, testId: 'metric-accuracy' },
              { value: 'usd_per_million', label: '$ / 1M tokens', disabled: s.request.serving === undefined, testId: 'metric-usd' },
            ]}
          />
        }
        testId="sweep-matrix-panel"
      >
        <div className="sweep-matrix-row">
          <SweepMatrix sweep={s} metric={shown} selected={selected} onSelect={setSelected} />
          <CellDetail sweep={s} index={selected} />
        </div>
        <p className="muted note-small">
          {shown === 'accuracy' ? 'Greener is more accurate.' : 'Greener is cheaper per million output tokens.'} A cell’s cost is its machine’s rate × the time the cell held it.
        </p>
      </Panel>

      <Panel title={servingOnly ? 'Ranked by $ per million output tokens' : 'Ranked by accuracy tier, then cost per correct answer'} testId="sweep-ranked-panel">
        {report.isError ? (
          <ErrorState error={report.error} onRetry={() => void report.refetch()} />
        ) : !report.data ? (
          <Loading height={160} label="Ranking…" />
        ) : (
          <>
            <Headline report={report.data} />
            <div className="table-x">
              <DataTable columns={rankedColumns(s, report.data, servingOnly, s.request.serving !== undefined)} rows={report.data.rows} rowKey={(r) => String(r.cell)} testId="sweep-ranked" />
            </div>
            {!servingOnly ? (
              <p className="muted note-small">
                Cells whose 95% accuracy intervals overlap the tier’s best share its tier: on this many scenarios their accuracies cannot be told apart, so the cheaper correct answer comes first.
              </p>
            ) : null}
          </>
        )}
      </Panel>

      {!servingOnly ? (
        <Panel title="Accuracy against the suite’s cost (Pareto front; bars are 95% intervals)" testId="sweep-pareto-panel">
          {report.data ? <ParetoChart report={report.data} /> : <Loading height={300} />}
        </Panel>
      ) : null}

      <Panel title="Machines" testId="sweep-machines-panel">
        <DataTable columns={machineColumns()} rows={[...s.earlier_machines, ...s.machines]} rowKey={(m) => m.machine_id} testId="sweep-machines" />
      </Panel>

      <CancelSweepDialog sweepId={sweepId} open={confirming} onClose={() => setConfirming(false)} />
    </div>
  );
}
