import { useState } from 'react';
import { Link } from 'wouter';
import { isTerminal, type JobEvent, type JobKind, type JobRecord, type JobRecordOf } from '../../../shared';
import { RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { jobModel, KIND_LABELS } from '../../lib/job';
import { rentsMachine } from '../../lib/machines';
import { useJobEventStream } from '../../queries/job-events';
import { useJob } from '../../queries/jobs';
import { ROUTES } from '../../router/routes';
import { useJobStream } from '../../state/event-stream';
import { EventLog } from './EventLog';
import { FailureNotice } from './FailureNotice';
import { JobFacts } from './JobFacts';
import { useJobActions } from './JobActions';
import { KIND_VIEWS, type KindView } from './kinds';
import { MachinePanel } from './MachinePanel';
import { useSweepOfJob } from './SweepOfJob';
import './job-detail.css';

/** The kind's own section, typed by its kind. */
function KindSection<K extends JobKind>({ job, events, terminal }: { job: JobRecordOf<K>; events: readonly JobEvent[]; terminal: boolean }) {
  const View = KIND_VIEWS[job.kind] as KindView<K>;
  return <View job={job} events={events} terminal={terminal} />;
}

function Loaded({ job }: { job: JobRecord }) {
  useJobEventStream(job.job_id, job.status);
  const stream = useJobStream(job.job_id);
  const [showRaw, setShowRaw] = useState(false);
  const terminal = isTerminal(job.status);
  const ofSweep = useSweepOfJob(job);
  const actions = useJobActions(job, terminal);

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
      actions={actions.buttons}
    >
      <JobFacts job={job} terminal={terminal} ofSweep={ofSweep} />
      {job.status === 'failed' ? <FailureNotice job={job} /> : null}
      {job.status === 'cancelled' ? <Notice tone="warn">Cancelled: {job.message}</Notice> : null}
      {rentsMachine(job) ? <MachinePanel job={job} events={stream.events} onCancelJob={actions.askCancel} /> : null}
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
      {actions.dialogs}
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
