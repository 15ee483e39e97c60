import { useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { isTerminal, type CreateJobInput, type JobEvent, type JobKind, type JobRecord, type JobRecordOf } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Duration, RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDph } from '../../lib/format';
import { jobBackend, jobModel, KIND_LABELS, kindInSentence } from '../../lib/job';
import { rentsMachine } from '../../lib/machines';
import { useJobEventStream } from '../../queries/job-events';
import { useCancelJob, useCreateJob, useJob } from '../../queries/jobs';
import { jobPath, ROUTES } from '../../router/routes';
import { useJobStream } from '../../state/event-stream';
import { useUiStore } from '../../state/ui-store';
import { draftFromRequest, EDITABLE_KINDS } from '../launch/launch-form';
import { EventLog } from './EventLog';
import { KIND_VIEWS, type KindView } from './kinds';
import { MachinePanel } from './MachinePanel';
import './job-detail.css';
import { FailureNotice } from './FailureNotice';
import { SweepMachineFact, useSweepOfJob } from './SweepOfJob';

/** The kind's own section, typed by its kind. */
function KindSection<K extends JobKind>({ job, events, terminal }: { job: JobRecordOf<K>; events: readonly JobEvent[]; terminal: boolean }) {
  const View = KIND_VIEWS[job.kind] as KindView<K>;
  return <View job={job} events={events} terminal={terminal} />;
}

/** The same request again, as a new job (the stored request is what the kind's schema accepted). */
function rerunInput(job: JobRecord): CreateJobInput {
  return { kind: job.kind, request: job.request } as CreateJobInput;
}

function Loaded({ job }: { job: JobRecord }) {
  const [, navigate] = useLocation();
  useJobEventStream(job.job_id, job.status);
  const stream = useJobStream(job.job_id);
  const cancel = useCancelJob(job.job_id);
  const rerun = useCreateJob();
  const prefillLaunch = useUiStore((s) => s.prefillLaunch);
  const [confirm, setConfirm] = useState<'cancel' | 'rerun' | null>(null);
  const [showRaw, setShowRaw] = useState(false);
  const rerunKey = useRef<string | null>(null);
  const terminal = isTerminal(job.status);
  const rents = rentsMachine(job);
  const instanceId = job.resources?.marketplace_instance_id ?? null;
  const ofSweep = useSweepOfJob(job);

  const editAndRerun = () => {
    prefillLaunch(job.kind, draftFromRequest(job.request as Record<string, unknown>), job.job_id);
    navigate(ROUTES.launch);
  };

  return (
    <Page
      title={
        <>
          {KIND_LABELS[job.kind]} <span className="muted">{jobModel(job) ?? ''}</span>
        </>
      }
      subtitle={
        <>
          <code data-testid="job-id">{job.job_id}</code> · created <RelativeTime iso={job.created_at} />
        </>
      }
      testId="page-job"
      actions={
        <>
          <CopyButton text={job.job_id} label="Copy job ID" testId="copy-job-id" />
          {EDITABLE_KINDS.includes(job.kind) ? (
            <button type="button" className="button" onClick={editAndRerun} data-testid="edit-rerun" title="Open Launch with this request filled in">
              Edit and re-run
            </button>
          ) : null}
          {job.status === 'succeeded' ? (
            <button type="button" className="button" onClick={() => setConfirm('rerun')} data-testid="rerun">
              Re-run
            </button>
          ) : null}
          {!terminal ? (
            <button type="button" className="button button-danger" onClick={() => setConfirm('cancel')} disabled={cancel.isPending} data-testid="cancel-job">
              {cancel.isPending ? 'Cancelling…' : 'Cancel job'}
            </button>
          ) : null}
        </>
      }
    >
      <Panel>
        <dl className="kv" data-testid="job-header" data-status={job.status}>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={job.status} />{' '}
            <span className="muted" data-testid="job-progress">
              {!terminal && job.progress?.phase
                ? `phase ${job.progress.phase}${job.progress.detail ? `: ${job.progress.detail}` : ''}`
                : job.message === job.status || job.status === 'failed' || job.status === 'cancelled'
                  ? '' // said in full in the notice below
                  : job.message}
            </span>
          </dd>
          <dt>Kind</dt>
          <dd>{KIND_LABELS[job.kind]}</dd>
          <dt>Model</dt>
          <dd>{jobModel(job) ?? '—'}</dd>
          <dt>Backend</dt>
          <dd className="mono">{job.result && 'backend_url' in job.result && job.result.backend_url ? job.result.backend_url : jobBackend(job)}</dd>
          <dt>Job time</dt>
          <dd data-testid="job-time">
            {job.started_at ? (
              <>
                <Duration since={job.started_at} until={job.finished_at} />{' '}
                <span className="muted">
                  {terminal ? 'from start to end of the job' : 'so far'} · started <RelativeTime iso={job.started_at} />
                </span>
              </>
            ) : (
              <span className="muted">not started yet</span>
            )}
          </dd>
          {!rents && ofSweep ? <SweepMachineFact of={ofSweep} /> : null}
          {!rents && !ofSweep ? (
            <>
              <dt>Machine</dt>
              <dd data-testid="job-no-machine" className="muted">
                none rented: it runs on the backend above, so benchdesk bills nothing for it
              </dd>
            </>
          ) : null}
        </dl>
      </Panel>

      {job.status === 'failed' ? <FailureNotice job={job} /> : null}
      {job.status === 'cancelled' ? <Notice tone="warn">Cancelled: {job.message}</Notice> : null}

      {rents ? <MachinePanel job={job} events={stream.events} onCancelJob={() => setConfirm('cancel')} /> : null}

      <KindSection job={job} events={stream.events} terminal={terminal} />

      <EventLog events={stream.events} state={stream.state} error={stream.error} />

      <Panel
        title="Raw JSON"
        actions={
          <button type="button" className="button button-small" aria-expanded={showRaw} onClick={() => setShowRaw(!showRaw)} data-testid="toggle-raw">
            {showRaw ? 'Hide' : 'Show'}
          </button>
        }
      >
        {showRaw ? <pre className="raw-json" data-testid="raw-json">{JSON.stringify(job, null, 2)}</pre> : <p className="muted">The job record as the API returns it.</p>}
      </Panel>

      <ConfirmDialog
        open={confirm === 'cancel'}
        title="Cancel this job?"
        confirmLabel="Cancel job"
        cancelLabel="Keep running"
        tone="danger"
        busy={cancel.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          cancel.mutate(undefined, { onSettled: () => setConfirm(null) });
        }}
        testId="cancel-confirm"
      >
        <p>The job stops at its next step and ends as cancelled.</p>
        {rents ? (
          <p data-testid="cancel-release-note">
            <strong>Its rented machine{instanceId ? ` (#${instanceId})` : ''} will be released</strong>, so billing stops; the release shows in the events.
          </p>
        ) : null}
        {cancel.isError ? <ErrorState error={cancel.error} /> : null}
      </ConfirmDialog>

      <ConfirmDialog
        open={confirm === 'rerun'}
        title="Run this request again?"
        confirmLabel={rents ? 'Rent and run again' : 'Run again'}
        busy={rerun.isPending}
        onCancel={() => {
          setConfirm(null);
          rerun.reset();
        }}
        onConfirm={() => {
          rerunKey.current ??= crypto.randomUUID();
          rerun.mutate(
            { ...rerunInput(job), idempotency_key: rerunKey.current },
            {
              onSuccess: (accepted) => {
                rerunKey.current = null;
                setConfirm(null);
                navigate(jobPath(accepted.job_id));
              },
            },
          );
        }}
        testId="rerun-confirm"
      >
        <p>A new {kindInSentence(job.kind)} job starts with the same request. To change something first, use Edit and re-run.</p>
        {job.kind !== 'agentic-agent' && job.request.marketplace ? (
          <p>
            <strong>It rents a new machine</strong> at up to {formatDph(job.request.max_dph ?? null)}
            {job.kind === 'benchmark' || job.kind === 'suite' ? (job.request.marketplace_stop_instance ? ', released when the run ends.' : ', kept running afterwards.') : ', kept running afterwards.'}
          </p>
        ) : null}
        {rerun.isError ? <ErrorState error={rerun.error} /> : null}
      </ConfirmDialog>
    </Page>
  );
}

export function JobDetailPage({ jobId }: { jobId: string }) {
  const job = useJob(jobId);
  if (job.isPending) return <Loading label="Loading job…" height={400} />;
  if (job.isError) {
    return (
      <Page title="Job" subtitle={<code>{jobId}</code>} testId="page-job">
        {job.error.status === 404 ? (
          <EmptyState title="No such job" testId="job-not-found" action={<Link href={ROUTES.jobs} className="button">Open the Jobs list</Link>}>
            <p>
              There is no job <code>{jobId}</code> for this API token. The link may be wrong, or the job belongs to another tenant.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={job.error} onRetry={() => void job.refetch()} />
        )}
      </Page>
    );
  }
  return <Loaded job={job.data} />;
}
