import type { JobEvent } from '../../shared';
import { appendFileFast, writeFileAtomic } from './atomic-file';
import { toJsonl } from './jsonl';
import { loadLogFile } from './log-file';
import type { Quarantine } from './quarantine';
import { parseStoredEvent } from './records';

/**
 * A job's `<job_id>.events.jsonl`. Callers hold the job's lock (KeyedMutex), so a read never sees a
 * half-written append and a repair never races one.
 */
export async function readEventsFile(filePath: string, quarantine: Quarantine): Promise<JobEvent[]> {
  const loaded = await loadLogFile(filePath, parseStoredEvent, quarantine, 'event log');
  return loaded.values;
}

/**
 * Appends without fsync: the journal holds these events until the next checkpoint fsyncs the file.
 * A full disk can leave a partial line; the retry runs as a replay (mergeEventsFile), which sets
 * that torn tail aside before adding what is missing, so no rollback bookkeeping is needed here.
 */
export async function appendEventsFile(filePath: string, events: readonly JobEvent[]): Promise<void> {
  if (events.length > 0) await appendFileFast(filePath, toJsonl(events));
}

/**
 * Journal replay: adds the events the file lacks (by seq). Appends when they all come after the
 * file's last seq (the usual case after a crash), otherwise rewrites the file in seq order.
 */
export async function mergeEventsFile(filePath: string, events: readonly JobEvent[], quarantine: Quarantine): Promise<void> {
  const existing = await readEventsFile(filePath, quarantine);
  const have = new Set(existing.map((e) => e.seq));
  const missing = events.filter((e) => !have.has(e.seq));
  if (missing.length === 0) return;
  const lastSeq = existing.reduce((m, e) => Math.max(m, e.seq), 0);
  if (missing.every((e) => e.seq > lastSeq)) {
    await appendEventsFile(filePath, missing);
    return;
  }
  const all = [...existing, ...missing].sort((a, b) => a.seq - b.seq);
  await writeFileAtomic(filePath, toJsonl(all), { fsync: false });
}
