import { jobErrorWording, type JobRecord } from '../../../shared';
import { Notice } from '../../components/States';

/** Why the job failed, worded by its error_code (shared/job-errors.ts), with what to do next. */
export function FailureNotice({ job }: { job: Pick<JobRecord, 'error' | 'error_code' | 'message'> }) {
  const wording = jobErrorWording(job.error_code);
  return (
    <Notice tone="error" testId="job-error">
      <p>
        <strong>
          {wording?.title ?? 'Failed'}
          {job.error_code ? ` (${job.error_code})` : ''}:
        </strong>{' '}
        {job.error ?? job.message}
      </p>
      {wording ? (
        <p className="notice-next" data-testid="job-error-next">
          {wording.next}
        </p>
      ) : null}
    </Notice>
  );
}
