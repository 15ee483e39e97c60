import fsp from 'node:fs/promises';
import type { JobRecord } from '../../shared';
import { isErrno } from './atomic-file';
import { jobFilePath } from './layout';
import type { Quarantine } from './quarantine';
import { parseStoredRecord } from './records';
import type { StoreLogger } from './types';

/**
 * One job's file, read and checked: a file that is missing or does not read as the job (while the
 * job is live in the index and has no pending write) drops the job from the index, and a corrupt
 * file is set aside in corrupt/.
 */
export async function readJobFile(
  jobId: string,
  o: { dataDir: string; logger: StoreLogger; quarantine: Quarantine; live: () => boolean; drop: () => void },
): Promise<JobRecord | undefined> {
  const file = jobFilePath(o.dataDir, jobId);
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    if (!o.live()) return undefined;
    o.logger.warn(`job file of ${jobId} is missing: dropping the job from the index`, { job_id: jobId, file });
    o.drop();
    return undefined;
  }
  let record: JobRecord | undefined;
  try {
    record = parseStoredRecord(JSON.parse(text));
  } catch {
    record = undefined;
  }
  if (record && record.job_id === jobId) return record;
  if (!o.live()) return undefined;
  try {
    await o.quarantine.moveAside(file, `job file of ${jobId} is corrupt`, { job_id: jobId });
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  o.drop();
  return undefined;
}
