import { useState } from 'react';
import type { SweepRecord } from '../../../shared';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { formatUsd } from '../../lib/format';
import { useSweeps } from '../../queries/sweeps';
import { hrefOf, ROUTES, sweepPath } from '../../router/routes';
import { SweepDetail } from './SweepDetail';
import { SweepForm } from './SweepForm';
import { outcomeSummary } from './sweep-outcome';
import '../overview/common.css';
import './sweeps.css';

const columns: Column<SweepRecord>[] = [
  {
    id: 'name',
    header: 'Sweep',
    cell: (s) => (
      <a href={hrefOf(sweepPath(s.sweep_id))} data-testid={`sweep-link-${s.sweep_id}`}>
        {s.name}
      </a>
    ),
  },
  {
    id: 'status',
    header: 'Status',
    cell: (s) => {
      const problems = outcomeSummary(s);
      return (
        <span className="sweep-status-cell">
          <StatusBadge status={s.status} />
          {problems ? (
            <span className="badge badge-warn" title={problems} data-testid={`sweep-not-clean-${s.sweep_id}`}>
              not clean<span className="visually-hidden">: {problems}</span>
            </span>
          ) : null}
        </span>
      );
    },
  },
  { id: 'cells', header: 'Cells', align: 'right', cell: (s) => `${s.cells.filter((c) => c.status !== 'pending' && c.status !== 'running').length}/${s.cells.length}` },
  { id: 'size', header: 'Models × GPUs', cell: (s) => `${s.request.models.length} × ${s.request.gpus.length}` },
  {
    id: 'spend',
    header: 'Spend',
    align: 'right',
    cell: (s) => (
      <>
        <Money usd={s.spend_usd} /> <span className="muted">/ {formatUsd(s.max_total_cost_usd)}</span>
      </>
    ),
    sortValue: (s) => s.spend_usd,
  },
  { id: 'created', header: 'Started', cell: (s) => <RelativeTime iso={s.created_at} />, sortValue: (s) => s.created_at },
];

/** The Sweeps page: the sweeps so far and a new one (/sweeps), or one sweep (/sweeps/<id>). */
export function SweepsPage({ sweepId }: { sweepId?: string }) {
  const sweeps = useSweeps();
  const [creating, setCreating] = useState(false);
  if (sweepId) {
    return (
      <Page title="Sweep" subtitle={<a href={hrefOf(ROUTES.sweeps)}>← All sweeps</a>} testId="sweep-page">
        <SweepDetail sweepId={sweepId} />
      </Page>
    );
  }
  const list = sweeps.data?.sweeps ?? [];
  const showForm = creating || (sweeps.isSuccess && list.length === 0);
  return (
    <Page
      title="Sweeps"
      subtitle="Models × GPUs in one go: one rented machine per GPU, every model on it, a ranked answer with the price of each correct answer."
      actions={
        !showForm ? (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)} data-testid="sweep-new">
            New sweep
          </button>
        ) : null
      }
      testId="sweeps-page"
    >
      {showForm ? (
        <Panel
          title="New sweep"
          actions={
            list.length > 0 ? (
              <button type="button" className="button" onClick={() => setCreating(false)}>
                Close
              </button>
            ) : null
          }
          testId="sweep-new-panel"
        >
          <SweepForm onDone={() => setCreating(false)} />
        </Panel>
      ) : null}
      <Panel title="Sweeps" testId="sweeps-list-panel">
        {sweeps.isError ? (
          <ErrorState error={sweeps.error} onRetry={() => void sweeps.refetch()} />
        ) : sweeps.isPending ? (
          <Loading height={120} label="Loading sweeps…" />
        ) : list.length === 0 ? (
          <EmptyState title="No sweep yet" testId="sweeps-empty">
            <p>Choose models and GPUs above: benchdesk rents one machine per GPU, runs every model on it, releases it, and ranks the cells by accuracy and cost.</p>
          </EmptyState>
        ) : (
          <DataTable columns={columns} rows={list} rowKey={(s) => s.sweep_id} testId="sweeps-table" />
        )}
      </Panel>
    </Page>
  );
}
