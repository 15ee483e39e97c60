import type { JobRecord } from '../../../shared';
import { Duration, RelativeTime } from '../../components/Format';
import { Panel } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { jobBackend, jobModel, KIND_LABELS } from '../../lib/job';
import { rentsMachine } from '../../lib/machines';
import { SweepMachineFact, type SweepOfJob } from './SweepOfJob';

/** The phase a running job is in, or its message (a failure and a cancellation are said in full below). */
function progressText(job: JobRecord, terminal: boolean): string {
  if (!terminal && job.progress?.phase) return `phase ${job.progress.phase}${job.progress.detail ? `: ${job.progress.detail}` : ''}`;
  if (job.message === job.status || job.status === 'failed' || job.status === 'cancelled') return '';
  return job.message;
}

/** The summary every job page starts with: status, kind, model, backend, job time, and the machine it ran on. */
export function JobFacts({ job, terminal, ofSweep }: { job: JobRecord; terminal: boolean; ofSweep: SweepOfJob | null }) {
  const rents = rentsMachine(job);
  return (
    <Panel>
      <dl className="kv" data-testid="job-header" data-status={job.status}>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={job.status} />{' '}
          <span className="muted" data-testid="job-progress">
            {progressText(job, terminal)}
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
  );
}
