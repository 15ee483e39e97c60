import fsp from 'node:fs/promises';
import path from 'node:path';
import type { JobEvent, JobRecord } from '../../shared';
import { forEachLimit, fsyncPath, isOutOfSpace, overwriteJournaledFile } from './atomic-file';
import { appendEventsFile, mergeEventsFile } from './events-file';
import type { IdempotencyTable } from './idempotency-table';
import type { IndexLog } from './index-log';
import { indexLineOf, type IndexLine } from './job-index';
import type { JournalEntry } from './journal';
import type { KeyedMutex } from './keyed-mutex';
import { eventsFilePath, jobFilePath, jobShardDir } from './layout';
import type { Quarantine } from './quarantine';
import { serializeConfFormat } from './records';
import type { IdempotencyRecord } from './types';

export type MaterialiserDeps = {
  dataDir: string;
  indexLog: IndexLog;
  idempotency: IdempotencyTable;
  eventLocks: KeyedMutex;
  quarantine: Quarantine;
  /** A job file now holds this record (the store can stop pinning it in memory). */
  onJobWritten(record: JobRecord): void;
  /** These events are now in the job's event file. */
  onEventsWritten(jobId: string, events: readonly JobEvent[]): void;
  /** A write hit a full disk (err) and is being retried, or (undefined) went through again. */
  onSpace?(err: unknown): void;
  /** Pause between retries of a batch that hit a full disk (default 1 s). */
  spaceRetryMs?: number;
};

/*
 * Why job files are written by the store itself and not through Conf: measured here (conf 16,
 * Node 24, this disk), `new Conf({cwd, configName}).store = rec` costs ~0.7-1.4 ms per job,
 * synchronous on the main thread, and always fsyncs (atomically.writeFileSync), i.e. one fsync per
 * job, which is exactly what group commit avoids. atomically's async writeFile without fsync costs
 * ~0.5-1.2 ms (a scheduler, realpath and stat per write). The file format is conf's own
 * (tab-indented JSON), so `new Conf({cwd: shardDir, configName: jobId})` opens any job file; the
 * store's settings-like data (store-meta.json) does go through Conf.
 *
 * A job file is rewritten in place (overwriteJournaledFile), not through a temp file and a rename:
 * the journal entry it comes from is the durable copy until a checkpoint has fsynced the file, so
 * a crash mid-write is repaired by the replay, and while the write runs this process serves the
 * record from memory (the store drops it from memory only once onJobWritten says it is written).
 * Creating an inode per write cost more CPU than the rest of the background writing: 1,000
 * concurrent benchmarks 8.5-9.2 → 7.2-7.4 ms of CPU per job, durable POST 0.32 → 0.33-0.40 of bare
 * node in full bench runs on one machine.
 */

// Files written per batch in parallel: bounded so a big batch (journal replay) cannot run out of
// fds, and leaving threads of libuv's pool (sized from UV_THREADPOOL_SIZE when first used) to the
// journal's durable writes: 12 of the server's (and the engine bench's) 16, 4 of node's default 4 in tests.
const WRITE_CONCURRENCY = Math.max(4, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 4);
// A pending batch stops taking more entries at one of these sizes. A bigger round merges more of a
// job's versions and events into one write (1,000 concurrent benchmarks under strace: 24 file opens
// per job at 256, 13 at 1,024), but while commits wait for room (roomFor) it is how long they wait: one
// round. Measured under a sustained flood of submits: rounds of 1,000 gave a p99 of 60-90 ms, of
// 256 25-40 ms at the same rate (~3.1k/s), of 64 a lower rate (~2.2k/s). So rounds are big while
// nothing waits for them and short once commits do.
const MAX_JOINED_ENTRIES = 1024;
const MAX_JOINED_ENTRIES_WHILE_COMMITS_WAIT = 256;

/**
 * Turns journaled batches into the per-job files, index lines and idempotency lines, in journal
 * order, one batch at a time, without fsync. Every path it touches is remembered; a checkpoint
 * fsyncs them all and only then deletes the journal file that covered them. This is what lets one
 * journal fdatasync acknowledge many jobs while a write's cost stays independent of the job count.
 */
export class Materialiser {
  private chain: Promise<void> = Promise.resolve();
  private checkpoints: Promise<void> = Promise.resolve();
  private dirtyFiles = new Set<string>();
  private dirtyDirs = new Set<string>();
  private failure: unknown;
  /** The full-disk error a batch is being retried on; the batches behind it wait. */
  private stall: unknown;
  private wake: (() => void) | undefined;
  private stopped = false;
  /** The queued batch that has not started yet: later batches join it. */
  private pendingBatch: { entries: JournalEntry[]; replay: boolean; done: Promise<void> } | undefined;
  /** Journal files whose checkpoint failed on a full disk: deleted by the next checkpoint that works. */
  private journalsToDelete: string[] = [];
  /** Journal entries enqueued whose files are not written yet, and the commits waiting for that to shrink. */
  private unwritten = 0;
  private roomWaiters: (() => void)[] = [];

  constructor(private readonly deps: MaterialiserDeps) {}

  /** The first error hit (the journal still holds the data; reopening replays it). */
  get error(): unknown {
    return this.failure;
  }

  /** Set while a batch waits for disk space (retried every spaceRetryMs, or at once on retryNow). */
  get stalledOn(): unknown {
    return this.stall;
  }

  /** Retry a stalled batch now instead of at the next timer tick. */
  retryNow(): void {
    this.wake?.();
  }

  /** Stop retrying a stalled batch (close): it stays in the journal and is replayed at the next open. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
    this.wakeRoomWaiters();
  }

  /**
   * Resolves once at most `limit` journal entries wait for their files, or once waiting is no use
   * (a batch stalled on a full disk, a failure, close): the caller checks those itself. This is the
   * store's back-pressure: when files cannot keep up with commits, each commit waits for a round
   * of files, so records held in memory stay bounded and the wait is spread over the requests.
   */
  async roomFor(limit: number): Promise<void> {
    while (this.unwritten > limit && this.stall === undefined && this.failure === undefined && !this.stopped) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
  }

  private wakeRoomWaiters(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Queues a journaled batch. `replay` merges events by seq (they may already be in the file). A
   * batch that hits a full disk is retried until it goes through: it is in the journal already, so
   * it must reach its files, and everything queued behind it waits (the store refuses new writes
   * meanwhile). Retries run in replay mode, so events an earlier attempt did write are not doubled.
   */
  enqueue(entries: readonly JournalEntry[], replay = false): Promise<void> {
    // Batches that arrive while the previous one is being written join one pending batch: under
    // load each job file is then written once for several journal batches (its last version),
    // and the file work stays a few large rounds instead of one small round per commit.
    this.unwritten += entries.length;
    const pending = this.pendingBatch;
    const joinLimit = this.roomWaiters.length > 0 ? MAX_JOINED_ENTRIES_WHILE_COMMITS_WAIT : MAX_JOINED_ENTRIES;
    if (pending && pending.entries.length < joinLimit) {
      for (const e of entries) pending.entries.push(e);
      pending.replay ||= replay;
      return pending.done;
    }
    const batch: { entries: JournalEntry[]; replay: boolean; done: Promise<void> } = { entries: [...entries], replay, done: Promise.resolve() };
    batch.done = this.run(async () => {
      if (this.pendingBatch === batch) this.pendingBatch = undefined;
      let asReplay = batch.replay;
      try {
        for (;;) {
          try {
            await this.apply(batch.entries, asReplay);
            if (this.stall !== undefined) {
              this.stall = undefined;
              this.deps.onSpace?.(undefined);
            }
            return;
          } catch (err) {
            if (!isOutOfSpace(err) || this.stopped) throw err;
            this.stall = err;
            this.deps.onSpace?.(err);
            this.wakeRoomWaiters();
            await this.pause();
            if (this.stopped) throw err;
            asReplay = true;
          }
        }
      } finally {
        // Written, or failed (the journal keeps it; the store refuses writes): either way it no longer holds commits back.
        this.unwritten -= batch.entries.length;
        this.wakeRoomWaiters();
      }
    });
    this.pendingBatch = batch;
    return batch.done;
  }

  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.deps.spaceRetryMs ?? 1000);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  /**
   * Runs a task between batches, with no materialisation in flight (compaction, rewrites). A task
   * that fails on a full disk only rejects its own promise: what it wrote is rolled back or
   * replaced atomically, so the store stays consistent and usable.
   */
  run(task: () => Promise<void>): Promise<void> {
    // Nothing queued after this task may join a batch queued before it.
    this.pendingBatch = undefined;
    const p = this.chain.then(async () => {
      if (this.failure !== undefined) throw this.failure;
      await task();
    });
    this.chain = p.then(
      () => undefined,
      (err: unknown) => {
        if (!isOutOfSpace(err) || this.stopped) this.failure ??= err;
        // Commits waiting for room must see the failure (batches after it never run).
        this.wakeRoomWaiters();
      },
    );
    return p;
  }

  /** Resolves when the batches queued so far are materialised (not waiting for checkpoints). */
  async idle(): Promise<void> {
    await this.chain;
  }

  async drain(): Promise<void> {
    await this.chain;
    await this.checkpoints;
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Makes everything materialised so far durable (fsync of each touched file and directory) and then
   * deletes `journalPath`, which covered it. Runs in the background; checkpoints run one at a time.
   */
  checkpoint(journalPath: string | undefined, concurrency: number): Promise<void> {
    let taken: { files: Set<string>; dirs: Set<string> } | undefined;
    const marker = this.run(async () => {
      taken = { files: this.dirtyFiles, dirs: this.dirtyDirs };
      this.dirtyFiles = new Set();
      this.dirtyDirs = new Set();
    });
    const next = this.checkpoints.then(async () => {
      await marker;
      if (!taken) return;
      const { files, dirs } = taken;
      try {
        // Files first, then the directories holding their (renamed-in) names.
        await forEachLimit(files, concurrency, fsyncPath);
        await forEachLimit(dirs, concurrency, fsyncPath);
      } catch (err) {
        if (!isOutOfSpace(err)) throw err;
        // Some file systems report a full disk only at fsync: keep the journal (it still covers
        // these files) and let the next checkpoint fsync them again and delete it.
        for (const f of files) this.dirtyFiles.add(f);
        for (const d of dirs) this.dirtyDirs.add(d);
        if (journalPath) this.journalsToDelete.push(journalPath);
        throw err;
      }
      const covered = journalPath ? [...this.journalsToDelete.splice(0), journalPath] : this.journalsToDelete.splice(0);
      for (const j of covered) await fsp.rm(j, { force: true });
    });
    this.checkpoints = next.catch((err: unknown) => {
      if (isOutOfSpace(err)) this.deps.onSpace?.(err);
      else this.failure ??= err;
    });
    return next;
  }

  private async apply(entries: readonly JournalEntry[], replay: boolean): Promise<void> {
    const { dataDir } = this.deps;
    // Coalesce: several versions of one job in a batch need only the last one on disk.
    const jobs = new Map<string, { rec: JobRecord; ord: number }>();
    const indexLines: IndexLine[] = [];
    const idem: IdempotencyRecord[] = [];
    const events = new Map<string, JobEvent[]>();
    for (const e of entries) {
      if (e.t === 'job') {
        jobs.set(e.rec.job_id, { rec: e.rec, ord: e.ord });
        indexLines.push(indexLineOf(e.rec, e.ord));
        if (e.idem) idem.push(e.idem);
      } else {
        const list = events.get(e.ev.job_id);
        if (list) list.push(e.ev);
        else events.set(e.ev.job_id, [e.ev]);
      }
    }
    await forEachLimit(jobs.values(), WRITE_CONCURRENCY, async ({ rec }) => {
      const file = jobFilePath(dataDir, rec.job_id);
      await overwriteJournaledFile(file, serializeConfFormat(rec));
      this.dirtyFiles.add(file);
      this.dirtyDirs.add(path.dirname(file));
      this.deps.onJobWritten(rec);
    });
    await this.deps.indexLog.append(indexLines);
    if (indexLines.length > 0) this.dirtyFiles.add(this.deps.indexLog.path);
    await this.deps.idempotency.append(idem);
    if (idem.length > 0) this.dirtyFiles.add(this.deps.idempotency.path);
    await forEachLimit(events, WRITE_CONCURRENCY, ([jobId, list]) =>
      this.deps.eventLocks.run(jobId, async () => {
        const file = eventsFilePath(dataDir, jobId);
        if (replay) await mergeEventsFile(file, list, this.deps.quarantine);
        else await appendEventsFile(file, list);
        this.dirtyFiles.add(file);
        this.dirtyDirs.add(jobShardDir(dataDir, jobId));
        this.deps.onEventsWritten(jobId, list);
      }),
    );
  }
}
