import type { JobStatus } from '../../shared';

const LABELS: Record<JobStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** A job's status: grey queued, blue running (with a spinner), green, red, amber. */
export function StatusBadge({ status }: { status: JobStatus }) {
  return (
    <span className={`status status-${status}`} data-status={status}>
      {status === 'running' ? <span className="spinner" aria-hidden="true" /> : <span className="dot" aria-hidden="true" />}
      {LABELS[status]}
    </span>
  );
}
