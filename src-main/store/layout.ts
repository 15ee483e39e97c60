import { isErrno } from './atomic-file';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * The on-disk layout of a data dir (design §9). Everything the store writes lives under these names;
 * the rest of the data dir (settings, api-token, logs) belongs to other modules.
 */
export const LAYOUT = {
  /** Conf store (`store-meta.json`): format version and the seq reservation. */
  metaConfigName: 'store-meta',
  lockFile: 'store.lock',
  indexFile: 'index.jsonl',
  idempotencyFile: 'idempotency.jsonl',
  journalDir: 'journal',
  jobsDir: 'jobs',
  corruptDir: 'corrupt',
} as const;

export const SHARD_COUNT = 256;

// job_id names files: only characters that are safe in a file name on every platform.
const SAFE_JOB_ID = /^[A-Za-z0-9_.-]{1,128}$/;

export function isSafeJobId(jobId: string): boolean {
  return SAFE_JOB_ID.test(jobId) && jobId !== '.' && jobId !== '..';
}

export function assertSafeJobId(jobId: string): void {
  if (!isSafeJobId(jobId)) throw new TypeError(`job_id ${JSON.stringify(jobId)} is not a safe file name ([A-Za-z0-9_.-]{1,128})`);
}

/**
 * Two hex digits of an FNV-1a hash of the id: spreads ids evenly even when they share a prefix
 * (ULIDs, "job_..."), so no directory holds more than ~1/256 of the jobs.
 */
export function shardOf(jobId: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) {
    h ^= jobId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) & 0xff).toString(16).padStart(2, '0');
}

export function shardDirs(dataDir: string): string[] {
  return Array.from({ length: SHARD_COUNT }, (_, i) => path.join(dataDir, LAYOUT.jobsDir, i.toString(16).padStart(2, '0')));
}

export function jobShardDir(dataDir: string, jobId: string): string {
  return path.join(dataDir, LAYOUT.jobsDir, shardOf(jobId));
}

/** `jobs/<shard>/<job_id>.json`: a conf-format (tab-indented JSON) file; `new Conf({cwd: shardDir, configName: jobId})` reads it. */
export function jobFilePath(dataDir: string, jobId: string): string {
  return path.join(jobShardDir(dataDir, jobId), `${jobId}.json`);
}

/** `jobs/<shard>/<job_id>.events.jsonl`: the job's append-only event log. */
export function eventsFilePath(dataDir: string, jobId: string): string {
  return path.join(jobShardDir(dataDir, jobId), `${jobId}.events.jsonl`);
}

export function journalFilePath(dataDir: string, gen: number): string {
  return path.join(dataDir, LAYOUT.journalDir, `${String(gen).padStart(8, '0')}.jsonl`);
}

/** Generation number of a journal file name, or undefined for anything else in the journal dir. */
export function journalGenOf(fileName: string): number | undefined {
  const m = /^(\d{8,})\.jsonl$/.exec(fileName);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** Each existing shard dir with its file names (a missing shard dir is skipped): the slow recovery scans. */
export async function* shardListings(dataDir: string): AsyncGenerator<{ dir: string; names: string[] }> {
  for (const dir of shardDirs(dataDir)) {
    try {
      yield { dir, names: await fsp.readdir(dir) };
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
  }
}
