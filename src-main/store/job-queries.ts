import { JOB_LIST_DEFAULT_LIMIT, searchWords, type JobRecord, type JobStatus } from '../../shared';
import { forEachLimit } from './atomic-file';
import { decodeCursor, encodeCursor } from './cursor';
import type { JobIndex } from './job-index';
import type { JobListFilter, JobListPage } from './types';

/** The store's list reads over its index: a page of jobs, and every job of some statuses. */

type Read = (jobId: string) => Promise<JobRecord | undefined>;

/** One page of a tenant's jobs, from memory when the page is there. */
export async function pageOfJobs(index: JobIndex, filter: JobListFilter, peek: (jobId: string) => JobRecord | undefined, read: Read): Promise<JobListPage> {
  const limit = Number.isFinite(filter.limit) ? Math.max(1, Math.floor(filter.limit)) : JOB_LIST_DEFAULT_LIMIT;
  const sort = filter.sort ?? '-created';
  const after = filter.cursor ? decodeCursor(filter.cursor, sort) : undefined;
  const words = searchWords(filter.q);
  // One clock for the whole page: a machine still billing is ranked by its cost at this moment.
  const now = Date.now();
  // A record that turns out corrupt is dropped from the index: recompute the page without it.
  for (let attempt = 0; ; attempt++) {
    const { entries, more, last } = index.page(filter.tenant_id, { status: filter.status, kind: filter.kind, words, sort }, limit, after, now);
    // A page of jobs in memory (the usual case) is read without a promise per job.
    const hot = entries.map((e) => peek(e.job_id));
    const records = hot.every((r) => r !== undefined) ? hot : await Promise.all(entries.map((e, i) => hot[i] ?? read(e.job_id)));
    const jobs = records.filter((r): r is JobRecord => r !== undefined);
    if (jobs.length === entries.length || attempt >= 4) {
      return { jobs, next_cursor: more && last ? encodeCursor(sort, last) : null };
    }
  }
}

/** Every job of these statuses (start-up recovery), read 16 at a time. */
export async function jobsByStatus(index: JobIndex, statuses: readonly JobStatus[], read: Read): Promise<JobRecord[]> {
  const entries = index.byStatus(statuses);
  const out: (JobRecord | undefined)[] = new Array<JobRecord | undefined>(entries.length);
  await forEachLimit(entries.keys(), 16, async (i) => {
    const e = entries[i];
    if (e) out[i] = await read(e.job_id);
  });
  return out.filter((r): r is JobRecord => r !== undefined);
}
