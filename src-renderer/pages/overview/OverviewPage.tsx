import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { createPortal } from 'react-dom';
import type { CancelJobResponse, InstanceJob, JobRecord, MarketplaceInstanceEntry } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime, RunningCost } from '../../components/Format';
import { Page, Panel, Stat } from '../../components/Page';
import { ReleaseMachineButton } from '../../components/ReleaseMachine';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount, formatDph, formatGpus, formatUsd } from '../../lib/format';
import { KIND_LABELS } from '../../lib/job';
import { useHealth } from '../../queries/health';
import { useJobCounts, useJobList } from '../../queries/jobs';
import { settingsKeys, useInstances, useSettings, useSpend } from '../../queries/settings';
import { hrefOf, jobPath, ROUTES, sweepPath } from '../../router/routes';
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

const CLASS_TONE: Record<MarketplaceInstanceEntry['classification'], string> = { active: 'badge-info', kept: 'badge-warn', orphaned: 'badge-error', foreign: 'badge-muted' };
const CLASS_TEXT: Record<MarketplaceInstanceEntry['classification'], string> = {
  active: 'its job is running',
  kept: 'kept after its job',
  orphaned: 'orphaned',
  foreign: 'another install',
};

function gpuOf(i: MarketplaceInstanceEntry): string | null {
  return i.gpu_name ? formatGpus(i.num_gpus ?? 1, i.gpu_name) : null;
}

/** Cancel for a machine in use: the job stops, and its cleanup releases the machine. */
function CancelJobButton({ job }: { job: InstanceJob }) {
  const api = useApi();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const cancel = useMutation<CancelJobResponse, BenchdeskApiError>({
    mutationFn: () => api.cancelJob({ job_id: job.job_id }),
    onSuccess: () => {
      setOpen(false);
      void qc.invalidateQueries({ queryKey: ['job', job.job_id] });
      void qc.invalidateQueries({ queryKey: settingsKeys.instances });
    },
  });
  return (
    <>
      <button type="button" className="button button-small" onClick={() => setOpen(true)} data-testid={`cancel-job-${job.job_id}`}>
        Cancel the job
      </button>
      {createPortal(
        <ConfirmDialog
          open={open}
          title="Cancel this job?"
          confirmLabel="Cancel job"
          cancelLabel="Keep running"
          tone="danger"
          busy={cancel.isPending}
          onCancel={() => {
            setOpen(false);
            cancel.reset();
          }}
          onConfirm={() => cancel.mutate()}
          testId="machine-cancel-confirm"
        >
          <p>
            Job <code>{job.job_id}</code> is using this machine. Cancelling stops it at its next step, and its cleanup releases the machine, so billing stops.
          </p>
          {cancel.isError ? <ErrorState error={cancel.error} /> : null}
        </ConfirmDialog>,
        document.body,
      )}
    </>
  );
}

function MachineAction({ machine }: { machine: MarketplaceInstanceEntry }) {
  if (machine.classification === 'active') {
    if (machine.job) return <CancelJobButton job={machine.job} />;
    // A sweep's machine: its sweep releases it (cancel the sweep on its page).
    return machine.sweep ? (
      <a className="button button-small" href={hrefOf(sweepPath(machine.sweep.sweep_id))} data-testid={`machine-sweep-${machine.instance_id}`}>
        Open the sweep
      </a>
    ) : null;
  }
  return (
    <ReleaseMachineButton
      target={{ instance_id: machine.instance_id, gpu: gpuOf(machine), dph: machine.dph_total, rentedAt: machine.rented_at, costSoFar: machine.cost_usd_so_far, downloadUsd: machine.download_usd ?? null, classification: machine.classification, label: machine.label }}
    />
  );
}

/** Why the last release of this machine failed (it is still billing), on its row. */
function ReleaseError({ machine }: { machine: MarketplaceInstanceEntry }) {
  if (!machine.release_error) return null;
  return (
    <span className="release-error" data-testid={`release-error-${machine.instance_id}`}>
      Last release failed: {machine.release_error}
    </span>
  );
}

function machineColumns(foreign: boolean): Column<MarketplaceInstanceEntry>[] {
  return [
    { id: 'id', header: 'Instance', cell: (i) => <span className="code-id">#{i.instance_id}</span> },
    {
      id: 'gpu',
      header: 'GPU',
      cell: (i) => (
        <span className="cell-stack">
          <span>{gpuOf(i) ?? <span className="muted">unknown GPU</span>}</span>
          <span className="muted">{i.state ?? 'scheduling'}</span>
        </span>
      ),
    },
    foreign
      ? {
          id: 'label',
          header: 'Label',
          cell: (i) => (
            <span className="cell-stack">
              <code className="machine-label" title={i.label}>
                {i.label}
              </code>
              <ReleaseError machine={i} />
            </span>
          ),
        }
      : {
          id: 'class',
          header: 'Why it is up',
          cell: (i) => (
            <span className="cell-stack">
              <span>
                <span className={`badge ${CLASS_TONE[i.classification]}`}>{i.sweep && i.classification === 'active' ? 'its sweep is running' : CLASS_TEXT[i.classification]}</span>
              </span>
              {i.job ? (
                <JobLink job={i.job} />
              ) : i.sweep ? (
                <a href={hrefOf(sweepPath(i.sweep.sweep_id))} data-testid={`machine-sweep-link-${i.instance_id}`}>
                  sweep “{i.sweep.name}”{i.sweep.model ? ` · running ${i.sweep.model}` : ''}
                </a>
              ) : (
                <span className="muted">job unknown here</span>
              )}
              <ReleaseError machine={i} />
            </span>
          ),
        },
    { id: 'dph', header: 'Rate', align: 'right', cell: (i) => formatDph(i.dph_total), sortValue: (i) => i.dph_total },
    { id: 'since', header: 'Rented', cell: (i) => <RelativeTime iso={i.rented_at} /> },
    {
      id: 'cost',
      header: 'Cost so far',
      align: 'right',
      cell: (i) => (i.dph_total && i.rented_at ? <RunningCost dph={i.dph_total} since={i.rented_at} downloadUsd={i.download_usd} /> : <Money usd={i.cost_usd_so_far} />),
    },
    {
      id: 'action',
      header: <span className="visually-hidden">Action</span>,
      align: 'right',
      cell: (i) => (
        <span className="machine-action" data-testid={`machine-${i.instance_id}`} data-classification={i.classification}>
          <MachineAction machine={i} />
        </span>
      ),
    },
  ];
}

function Machines({ instances }: { instances: ReturnType<typeof useInstances> }) {
  if (instances.isError) return <ErrorState error={instances.error} onRetry={() => void instances.refetch()} />;
  if (instances.isPending) return <Loading height={80} label="Asking the marketplace…" />;
  const list = instances.data.instances;
  const ours = list.filter((i) => i.classification !== 'foreign');
  const foreign = list.filter((i) => i.classification === 'foreign');
  if (list.length === 0) {
    return (
      <EmptyState title="No machine is rented" testId="overview-no-machines">
        <p>{instances.data.note ?? 'Marketplace runs rent a GPU machine and release it when they end.'}</p>
      </EmptyState>
    );
  }
  return (
    <>
      {ours.length > 0 ? (
        <DataTable columns={machineColumns(false)} rows={ours} rowKey={(i) => String(i.instance_id)} testId="overview-machines" />
      ) : (
        <p className="muted">None of this install’s jobs holds a machine.</p>
      )}
      {foreign.length > 0 ? (
        <section className="foreign-machines" data-testid="overview-foreign-machines" aria-labelledby="foreign-machines-title">
          <h3 id="foreign-machines-title">Machines of another benchdesk install ({formatCount(foreign.length)})</h3>
          <p className="muted note-small">
            Labelled by a benchdesk with another data directory on this marketplace account. This install never releases them on its own; release one only if you know it is no longer needed.
          </p>
          <DataTable columns={machineColumns(true)} rows={foreign} rowKey={(i) => String(i.instance_id)} testId="overview-foreign-table" />
        </section>
      ) : null}
    </>
  );
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
            <span className="muted">{KIND_LABELS[j.kind]}</span>
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
