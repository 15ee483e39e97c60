import { useMemo } from 'react';
import type { JobRecord } from '../../../shared';
import { DataTable, type Column } from '../../components/DataTable';
import { RelativeTime, RunningCost } from '../../components/Format';
import { Page, Panel, Stat } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount, formatDph } from '../../lib/format';
import { KIND_LABELS } from '../../lib/job';
import { useJobCounts, useJobList } from '../../queries/jobs';
import { useInstances, useSpend } from '../../queries/settings';
import { hrefOf, ROUTES } from '../../router/routes';
import { JobLink, jobModel } from './JobLink';
import { Machines } from './MachinesPanel';
import { OrphanBanner } from './OrphanBanner';
import { ApiPanel, RecentFailures } from './OverviewPanels';
import { SpendStats } from './SpendStats';
import './common.css';
import './overview.css';

function ActiveJobs() {
  const running = useJobList({ status: 'running' });
  const queued = useJobList({ status: 'queued' });
  const jobs = useMemo(
    () => [...(running.data?.pages[0]?.jobs ?? []), ...(queued.data?.pages[0]?.jobs ?? [])].slice(0, 12),
    [running.data, queued.data],
  );
  const columns: Column<JobRecord>[] = [
    { id: 'status', header: 'Status', cell: (j) => <StatusBadge status={j.status} /> },
    { id: 'job', header: 'Job', cell: (j) => <JobLink job={j} /> },
    { id: 'kind', header: 'Kind', cell: (j) => KIND_LABELS[j.kind] },
    { id: 'model', header: 'Model', cell: jobModel },
    { id: 'phase', header: 'Phase', cell: (j) => j.progress?.phase ?? '—' },
    { id: 'since', header: 'Started', cell: (j) => <RelativeTime iso={j.started_at ?? j.created_at} /> },
    {
      id: 'cost',
      header: 'Cost so far',
      align: 'right',
      cell: (j) => (j.resources?.dph_total && j.resources.rented_at ? <RunningCost dph={j.resources.dph_total} since={j.resources.rented_at} downloadUsd={j.resources.download_usd} /> : '—'),
    },
  ];
  if (running.isError) return <ErrorState error={running.error} onRetry={() => void running.refetch()} />;
  if (running.isPending || queued.isPending) return <Loading height={80} />;
  if (jobs.length === 0) {
    return (
      <EmptyState title="No job is running or queued" testId="overview-no-active">
        <p>
          <a href={hrefOf(ROUTES.launch)}>Launch a benchmark</a> or <a href={hrefOf(ROUTES.estimate)}>estimate what a GPU costs</a>.
        </p>
      </EmptyState>
    );
  }
  return <DataTable columns={columns} rows={jobs} rowKey={(j) => j.job_id} testId="overview-active-jobs" />;
}

/** The dashboard: what runs, what it costs, what failed, and whether the API is up. */
export function OverviewPage() {
  const counts = useJobCounts(undefined);
  const spend = useSpend();
  const instances = useInstances();
  const rented = instances.data?.instances ?? [];
  const rentedDph = rented.reduce((sum, i) => sum + (i.dph_total ?? 0), 0);
  const orphans = rented.filter((i) => i.classification === 'orphaned');
  const n = (v: number | undefined) => (v === undefined ? '…' : formatCount(v));

  return (
    <Page title="Overview" subtitle="What is running, what it costs, and what needs attention." testId="page-overview">
      <OrphanBanner orphans={orphans} />
      <div className="stats overview-stats" data-testid="overview-stats">
        <Stat label="Running jobs" value={n(counts.data?.by_status.running)} testId="stat-running" />
        <Stat label="Queued jobs" value={n(counts.data?.by_status.queued)} testId="stat-queued" />
        <Stat
          label="Machines rented now"
          value={instances.data && !instances.isError ? formatCount(rented.length) : instances.isError ? '?' : '…'}
          hint={instances.isError ? 'the marketplace does not answer' : rented.length > 0 ? `${formatDph(rentedDph)} together` : 'none billing'}
          testId="stat-machines"
        />
        <SpendStats spend={spend.data} />
        <Stat label="Jobs in total" value={n(counts.data?.total)} hint={counts.data ? `${formatCount(counts.data.by_status.failed)} failed` : '\u00a0'} testId="stat-total" />
      </div>
      {spend.isError ? <ErrorState error={spend.error} onRetry={() => void spend.refetch()} /> : null}

      <Panel title="Jobs running and queued" actions={<a href={hrefOf(ROUTES.jobs)}>All jobs</a>}>
        <ActiveJobs />
      </Panel>
      <Panel title="Machines rented now" testId="overview-machines-panel">
        <Machines instances={instances} />
      </Panel>
      <div className="grid-2 overview-grid">
        <Panel title="Recent failures" actions={<a href={hrefOf(ROUTES.jobs)}>All jobs</a>}>
          <RecentFailures />
        </Panel>
        <ApiPanel machines={instances.data} />
      </div>
      <p className="muted note-small">
        Spend adds up the cost each job recorded (a benchmark's rented time × its $/h), counted on the day the job ended; machines kept
        running after their job are listed above with their cost so far.
      </p>
    </Page>
  );
}
