import { useMemo } from 'react';
import type { JobRecord, MarketplaceInstanceEntry } from '../../../shared';
import { useApi } from '../../bridge';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime, RunningCost } from '../../components/Format';
import { Page, Panel, Stat } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount, formatDph, formatGpus, formatUsd } from '../../lib/format';
import { useHealth } from '../../queries/health';
import { useJobCounts, useJobList } from '../../queries/jobs';
import { useInstances, useSettings, useSpend } from '../../queries/settings';
import { hrefOf, jobPath, ROUTES } from '../../router/routes';
import { OrphanBanner } from './OrphanBanner';
import './common.css';
import './overview.css';

/** What a job ran: its model and, for a marketplace run, that it rents a machine. */
function jobModel(job: JobRecord): string {
  const req = job.request as { model?: unknown };
  return typeof req.model === 'string' ? req.model : '—';
}

function JobLink({ job }: { job: Pick<JobRecord, 'job_id'> }) {
  return (
    <a href={hrefOf(jobPath(job.job_id))} className="code-id" title={job.job_id}>
      {job.job_id.length > 14 ? `${job.job_id.slice(0, 12)}…` : job.job_id}
    </a>
  );
}

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
    { id: 'kind', header: 'Kind', cell: (j) => j.kind },
    { id: 'model', header: 'Model', cell: jobModel },
    { id: 'phase', header: 'Phase', cell: (j) => j.progress?.phase ?? '—' },
    { id: 'since', header: 'Started', cell: (j) => <RelativeTime iso={j.started_at ?? j.created_at} /> },
    {
      id: 'cost',
      header: 'Cost so far',
      align: 'right',
      cell: (j) => (j.resources?.dph_total && j.resources.rented_at ? <RunningCost dph={j.resources.dph_total} since={j.resources.rented_at} /> : '—'),
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

const CLASS_TONE: Record<MarketplaceInstanceEntry['classification'], string> = { active: 'badge-info', kept: 'badge-warn', orphaned: 'badge-error', foreign: 'badge-muted' };

function Machines({ instances }: { instances: ReturnType<typeof useInstances> }) {
  const columns: Column<MarketplaceInstanceEntry>[] = [
    { id: 'id', header: 'Instance', cell: (i) => <span className="code-id">{i.instance_id}</span> },
    { id: 'gpu', header: 'GPU', cell: (i) => formatGpus(i.num_gpus ?? 1, i.gpu_name ?? 'unknown GPU') },
    { id: 'class', header: 'Why it is up', cell: (i) => <span className={`badge ${CLASS_TONE[i.classification]}`}>{i.classification}</span> },
    { id: 'job', header: 'Job', cell: (i) => (i.job ? <JobLink job={i.job} /> : <span className="muted">unknown to this data dir</span>) },
    { id: 'dph', header: 'Rate', align: 'right', cell: (i) => formatDph(i.dph_total), sortValue: (i) => i.dph_total },
    { id: 'since', header: 'Rented', cell: (i) => <RelativeTime iso={i.rented_at} /> },
    {
      id: 'cost',
      header: 'Cost so far',
      align: 'right',
      cell: (i) => (i.dph_total && i.rented_at ? <RunningCost dph={i.dph_total} since={i.rented_at} /> : <Money usd={i.cost_usd_so_far} />),
    },
  ];
  if (instances.isError) return <ErrorState error={instances.error} onRetry={() => void instances.refetch()} />;
  if (instances.isPending) return <Loading height={80} label="Asking the marketplace…" />;
  const list = instances.data.instances;
  if (list.length === 0) {
    return (
      <EmptyState title="No machine is rented" testId="overview-no-machines">
        <p>{instances.data.note ?? 'Marketplace runs rent a GPU machine and release it when they end.'}</p>
      </EmptyState>
    );
  }
  return <DataTable columns={columns} rows={list} rowKey={(i) => String(i.instance_id)} testId="overview-machines" />;
}

function RecentFailures() {
  const failed = useJobList({ status: 'failed' });
  const jobs = (failed.data?.pages[0]?.jobs ?? []).slice(0, 5);
  if (failed.isError) return <ErrorState error={failed.error} onRetry={() => void failed.refetch()} />;
  if (failed.isPending) return <Loading height={80} />;
  if (jobs.length === 0) return <EmptyState title="No failed jobs" testId="overview-no-failures" />;
  return (
    <ul className="failure-list" data-testid="overview-failures">
      {jobs.map((j) => (
        <li key={j.job_id} className="failure">
          <div className="failure-head">
            <JobLink job={j} />
            <span className="muted">{j.kind}</span>
            <span>{jobModel(j)}</span>
            {j.error_code ? <code className="failure-code">{j.error_code}</code> : null}
            <span className="failure-when">
              <RelativeTime iso={j.finished_at ?? j.updated_at} />
            </span>
          </div>
          <p className="failure-reason" data-testid="failure-reason">
            {j.error ?? j.message}
          </p>
        </li>
      ))}
    </ul>
  );
}

function ApiPanel() {
  const api = useApi();
  const health = useHealth();
  const settings = useSettings();
  const state = health.isError ? 'error' : health.isPending ? 'checking' : health.data.status === 'ok' ? 'ok' : 'warn';
  const address = api.transport === 'http' ? window.location.origin : (settings.data?.environment.api_url ?? '…');
  const tokenFile = settings.data ? `${settings.data.environment.data_dir}/api-token` : '<data dir>/api-token';
  // The api-token file exists only for the app's own token; tokens from SERVICE_API_TOKENS are the user's.
  const fromEnvOnly = health.data?.token_sources?.includes('environment') === true && !health.data.token_sources.includes('app_token');
  const tokenLine = fromEnvOnly ? 'TOKEN=$BENCHDESK_TOKEN   # a token of SERVICE_API_TOKENS' : `TOKEN=$(cat '${tokenFile}')`;
  return (
    <Panel
      title="API"
      testId="overview-api"
      actions={
        <span className={`badge badge-${state}`} data-testid="overview-api-state" data-state={state}>
          {health.isError ? 'unreachable' : health.isPending ? 'checking' : health.data.status}
        </span>
      }
    >
      <dl className="kv">
        <dt>Address for scripts</dt>
        <dd>
          <code data-testid="overview-api-url">{address}</code>
        </dd>
        <dt>Version</dt>
        <dd>{health.data?.version ?? '—'}</dd>
        <dt>Authentication</dt>
        <dd>{health.data?.auth ?? '—'}</dd>
        {health.data?.reason ? (
          <>
            <dt>Attention</dt>
            <dd>{health.data.reason}</dd>
          </>
        ) : null}
      </dl>
      <p className="muted note-small">From a shell on this machine:</p>
      <pre className="snippet">{`${tokenLine}\ncurl -H "Authorization: Bearer $TOKEN" ${address}/v1/jobs\nbenchdesk jobs list --api-url ${address}`}</pre>
    </Panel>
  );
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
          value={instances.data ? formatCount(rented.length) : '…'}
          hint={rented.length > 0 ? `${formatDph(rentedDph)} together` : 'none billing'}
          testId="stat-machines"
        />
        <Stat
          label="Spend today"
          value={spend.data ? formatUsd(spend.data.today.cost_usd) : '…'}
          hint={spend.data ? `${formatCount(spend.data.today.jobs, 'job')} with a cost` : undefined}
          testId="stat-spend-today"
        />
        <Stat
          label="Spend this month"
          value={spend.data ? formatUsd(spend.data.this_month.cost_usd) : '…'}
          hint={spend.data ? `${formatCount(spend.data.this_month.jobs, 'job')} with a cost` : undefined}
          testId="stat-spend-month"
        />
        <Stat label="Jobs in total" value={n(counts.data?.total)} hint={counts.data ? `${formatCount(counts.data.by_status.failed)} failed` : undefined} testId="stat-total" />
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
        <ApiPanel />
      </div>
      <p className="muted note-small">
        Spend adds up the cost each job recorded (a benchmark's rented time × its $/h), counted on the day the job ended; machines kept
        running after their job are listed above with their cost so far.
      </p>
    </Page>
  );
}
