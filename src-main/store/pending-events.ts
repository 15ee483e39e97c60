import type { JobEvent } from '../../shared';
import { readEventsFile } from './events-file';
import type { KeyedMutex } from './keyed-mutex';
import { eventsFilePath } from './layout';
import type { Quarantine } from './quarantine';

/**
 * A job's events between the journal and its events file: durable in the journal, not written to
 * the file yet. A read merges the file and these under the job's lock, so an event is in the file
 * or still pending, never neither.
 */
export class PendingEvents {
  readonly #pending = new Map<string, JobEvent[]>();

  constructor(
    private readonly dataDir: string,
    private readonly quarantine: Quarantine,
    private readonly locks: KeyedMutex,
  ) {}

  add(ev: JobEvent): void {
    const pending = this.#pending.get(ev.job_id);
    if (pending) pending.push(ev);
    else this.#pending.set(ev.job_id, [ev]);
  }

  /** These reached the job's file. */
  written(jobId: string, written: readonly JobEvent[]): void {
    const pending = this.#pending.get(jobId);
    if (!pending) return;
    const done = new Set(written.map((e) => e.seq));
    const left = pending.filter((e) => !done.has(e.seq));
    if (left.length > 0) this.#pending.set(jobId, left);
    else this.#pending.delete(jobId);
  }

  /** A job's events (after a seq), from its file and what is still pending. `known`: the job is in the index. */
  async list(jobId: string, known: boolean, after?: number): Promise<JobEvent[]> {
    if (!known && !this.#pending.has(jobId)) return [];
    const events = await this.locks.run(jobId, async () => {
      const fromFile = await readEventsFile(eventsFilePath(this.dataDir, jobId), this.quarantine);
      const pending = this.#pending.get(jobId) ?? [];
      const lastOnDisk = fromFile.length > 0 ? (fromFile[fromFile.length - 1]?.seq ?? 0) : 0;
      return [...fromFile, ...pending.filter((e) => e.seq > lastOnDisk)];
    });
    return after === undefined ? events : events.filter((e) => e.seq > after);
  }
}
