import type { JobPatch, StoreLogger } from './types';

/** The job store's options and the fixed figures it starts from. */

export type OpenJobStoreOptions = {
  /** Absolute or relative; the same dir from Electron (userData), the headless server and the CLI. */
  dataDir: string;
  logger?: StoreLogger;
  /** Full job records kept in memory (LRU); index entries for every job are always in memory. */
  cacheSize?: number;
  /** Journal size after which it rotates and a background checkpoint fsyncs the files it covered. */
  checkpointBytes?: number;
  /** Seqs reserved on disk per store-meta write. */
  seqBlock?: number;
  /** Unlink the lock file in a process 'exit' handler (default true). */
  releaseLockOnExit?: boolean;
  /** While the disk is full: how often a stalled write is retried and free space probed (default 1 s). */
  spaceRetryMs?: number;
  /** Journal entries whose files may lag behind before commits wait for them (default 20,000). */
  maxUnwrittenEntries?: number;
};

/*
 * Back-pressure for floods the disk cannot keep up with: past maxUnwrittenEntries journal entries
 * whose files are not written yet, a new commit waits for the next round of files
 * (materialiser.roomFor). It bounds the records and events held in memory for them and spreads
 * the wait over the commits; waiting for the whole queue instead (as before) held every request
 * for seconds at a time. 20,000 absorbs a burst such as 1,000 benchmarks started at once (17k
 * events in ~3 s; at 4,000 that burst took twice as long), for at most ~40 MB (entries are ~2 KB).
 */
export const DEFAULTS = { cacheSize: 2000, checkpointBytes: 8 * 1024 * 1024, seqBlock: 1000, maxUnwrittenEntries: 20_000 } as const;
export const PATCHABLE: ReadonlySet<string> = new Set<keyof JobPatch>([
  'status',
  'message',
  'started_at',
  'finished_at',
  'progress',
  'result',
  'error',
  'error_code',
  'resources',
]);

