import type { JobRecord } from '../../../shared';
import { hrefOf, jobPath } from '../../router/routes';

/** What a job ran: its model and, for a marketplace run, that it rents a machine. */
export function jobModel(job: JobRecord): string {
  const req = job.request as { model?: unknown };
  return typeof req.model === 'string' ? req.model : '—';
}

/** A job's id, shortened, linking to its page. */
export function JobLink({ job }: { job: Pick<JobRecord, 'job_id'> }) {
  return (
    <a href={hrefOf(jobPath(job.job_id))} className="code-id" title={job.job_id}>
      {job.job_id.length > 14 ? `${job.job_id.slice(0, 12)}…` : job.job_id}
    </a>
  );
}

