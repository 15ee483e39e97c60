import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { JOB_LIST_DEFAULT_LIMIT, assertTransition, searchWords, type JobCounts, type JobEvent, type JobKind, type JobRecord, type JobStatus } from '../../shared';
import { DIR_MODE, forEachLimit, fsyncPath, isErrno, isOutOfSpace } from './atomic-file';
import { decodeCursor, encodeCursor } from './cursor';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import { readEventsFile } from './events-file';
import { GroupCommitter } from './group-commit';
import { IdempotencyTable } from './idempotency-table';
import { IndexLog } from './index-log';
import { indexLineOf, type JobIndex } from './job-index';
import { JournalWriter, listJournalGens, readJournal, type JournalEntry } from './journal';
import { tightenDataDir } from './permissions';
import { KeyedMutex } from './keyed-mutex';
import { LAYOUT, assertSafeJobId, eventsFilePath, jobFilePath, journalFilePath, shardDirs } from './layout';
import { consoleStoreLogger } from './logger';
import { LruCache } from './lru';
import { Materialiser } from './materialiser';
import { Quarantine } from './quarantine';
import { parseStoredRecord, toStoredEvent, toStoredRecord } from './records';
import { scanMaxSeq } from './seq-recovery';
import { SeqAllocator, StoreMeta } from './store-meta';
import {
  InsufficientStorageError,
  JobExistsError,
  JobNotFoundError,
  StoreFailedError,
  type StorageHealth,
  type IdempotencyRecord,
  type JobListFilter,
  type JobListPage,
  type JobPatch,
  type JobStore,
  type NewJobEvent,
  type StoreLogger,
} from './types';

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
const DEFAULTS = { cacheSize: 2000, checkpointBytes: 8 * 1024 * 1024, seqBlock: 1000, maxUnwrittenEntries: 20_000 } as const;
const PATCHABLE: ReadonlySet<string> = new Set<keyof JobPatch>([
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

/**
 * Opens (or creates) the job store of a data dir: takes the data-dir lock, loads the index and the
 * idempotency table, replays any journal a crash left, and starts a fresh journal. Throws
 * DataDirLockedError while another live process holds the dir.
 */
export async function openJobStore(options: OpenJobStoreOptions): Promise<JobStore> {
  const dataDir = path.resolve(options.dataDir);
  const logger = options.logger ?? consoleStoreLogger;
  await fsp.mkdir(dataDir, { recursive: true, mode: DIR_MODE });
  await tightenDataDir(dataDir, logger);
  const lock = acquireDataDirLock(dataDir, logger, { releaseOnExit: options.releaseLockOnExit ?? true });
  try {
    return await FileJobStore.open(dataDir, logger, lock, options);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function ensureLayout(dataDir: string): Promise<void> {
  const dirs = shardDirs(dataDir);
  const last = dirs[dirs.length - 1];
  if (last && fs.existsSync(last)) return;
  // All 256 shard dirs up front: later writes never create a directory (nor need to fsync its parent).
  for (const dir of dirs) await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  await fsyncPath(path.join(dataDir, LAYOUT.jobsDir));
  await fsyncPath(dataDir);
}

/** The space probe writes as much as the journal batch a full disk refused, within these bounds. */
const MIN_PROBE_BYTES = 64 * 1024;
const MAX_PROBE_BYTES = 8 * 1024 * 1024;

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function bumpTime(previous: string): string {
  const now = Date.now();
  const prev = Date.parse(previous);
  // updated_at moves forward even if two updates land in the same millisecond or the clock steps back.
  return new Date(Number.isNaN(prev) || now > prev ? now : prev + 1).toISOString();
}

class FileJobStore implements JobStore {
  private readonly cache: LruCache<string, JobRecord>;
  /** Journaled but not yet in its own file: reads must see these first. */
  private readonly dirty = new Map<string, JobRecord>();
  /**
   * Submitted to the journal but not durable yet: the base of the next update of the job and the
   * duplicate-id check, never what a read sees (a job is visible only once it is durable).
   */
  private readonly staged = new Map<string, JobRecord>();
  private readonly pendingEvents = new Map<string, JobEvent[]>();
  private readonly eventLocks = new KeyedMutex();
  private readonly jobLocks = new KeyedMutex();
  private readonly materialiser: Materialiser;
  private readonly committer: GroupCommitter<JournalEntry>;
  private writer!: JournalWriter;
  private seq!: SeqAllocator;
  private jobWrites = 0;
  private failure: unknown;
  /** The last full-disk error while one is unresolved (health says degraded meanwhile). */
  private spaceError: unknown;
  private spaceProbe: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly spaceRetryMs: number;
  private closing: Promise<void> | undefined;
  private readonly maxUnwrittenEntries: number;

  private constructor(
    readonly dataDir: string,
    private readonly logger: StoreLogger,
    private readonly lock: DataDirLock,
    private readonly quarantine: Quarantine,
    private readonly index: JobIndex,
    private readonly indexLog: IndexLog,
    private readonly idempotency: IdempotencyTable,
    options: OpenJobStoreOptions,
  ) {
    this.cache = new LruCache(options.cacheSize ?? DEFAULTS.cacheSize);
    this.spaceRetryMs = options.spaceRetryMs ?? 1000;
    this.maxUnwrittenEntries = options.maxUnwrittenEntries ?? DEFAULTS.maxUnwrittenEntries;
    this.materialiser = new Materialiser({
      spaceRetryMs: this.spaceRetryMs,
      onSpace: (err) => {
        if (err === undefined) this.spaceMaybeBack();
        else this.outOfSpace(err);
      },
      dataDir,
      indexLog,
      idempotency,
      eventLocks: this.eventLocks,
      quarantine,
      onJobWritten: (rec) => {
        if (this.dirty.get(rec.job_id) === rec) this.dirty.delete(rec.job_id);
      },
      onEventsWritten: (jobId, written) => {
        const pending = this.pendingEvents.get(jobId);
        if (!pending) return;
        const done = new Set(written.map((e) => e.seq));
        const left = pending.filter((e) => !done.has(e.seq));
        if (left.length > 0) this.pendingEvents.set(jobId, left);
        else this.pendingEvents.delete(jobId);
      },
    });
    this.committer = new GroupCommitter((entries) => this.writeBatch(entries));
  }

  static async open(dataDir: string, logger: StoreLogger, lock: DataDirLock, options: OpenJobStoreOptions): Promise<FileJobStore> {
    const started = performance.now();
    const quarantine = new Quarantine(dataDir, logger);
    await ensureLayout(dataDir);
    const meta = StoreMeta.open(dataDir, quarantine);
    const { log: indexLog, index, rebuilt } = await IndexLog.load(dataDir, quarantine);
    const idempotency = await IdempotencyTable.load(dataDir, quarantine);
    const store = new FileJobStore(dataDir, logger, lock, quarantine, index, indexLog, idempotency, options);

    // Replay what a crash left in the journal: newer than anything in the index, applied in order.
    const gens = await listJournalGens(dataDir);
    let maxSeq = 0;
    let replayed = 0;
    for (const gen of gens) {
      const entries = await readJournal(dataDir, gen, quarantine);
      for (const e of entries) {
        if (e.t === 'job') {
          index.upsert(indexLineOf(e.rec, e.ord));
          if (e.idem) idempotency.put(e.idem);
        } else if (e.ev.seq > maxSeq) {
          maxSeq = e.ev.seq;
        }
      }
      void store.materialiser.enqueue(entries, true);
      replayed += entries.length;
    }
    if (gens.length > 0) {
      // Nothing is writing yet, so the checkpoint may use more of the thread pool.
      await store.materialiser.checkpoint(undefined, 8);
      for (const gen of gens) await fsp.rm(journalFilePath(dataDir, gen), { force: true });
      await fsyncPath(path.join(dataDir, LAYOUT.journalDir));
      logger.info(`replayed ${replayed} journal entr${replayed === 1 ? 'y' : 'ies'} from ${gens.length} file(s)`, { data_dir: dataDir });
    }
    if (meta.state === 'recovered' || (meta.state === 'new' && (index.size > 0 || gens.length > 0))) {
      maxSeq = Math.max(maxSeq, await scanMaxSeq(dataDir));
      logger.warn(`seq reservation recovered from the event logs: continuing after ${maxSeq}`, { data_dir: dataDir });
    }
    store.seq = new SeqAllocator(meta, dataDir, options.seqBlock ?? DEFAULTS.seqBlock, maxSeq);
    if (rebuilt || indexLog.needsCompaction(index.size)) await indexLog.compact(index);
    if (idempotency.needsCompaction()) await idempotency.rewrite();
    store.writer = await JournalWriter.open(dataDir, (gens[gens.length - 1] ?? 0) + 1, options.checkpointBytes ?? DEFAULTS.checkpointBytes);
    logger.info('job store open', { data_dir: dataDir, jobs: index.size, ms: Math.round(performance.now() - started) });
    return store;
  }

  // ---- writes --------------------------------------------------------------------------------

  private assertWritable(): void {
    if (this.closing) throw new Error('job store is closed');
    const failure = this.failure ?? this.materialiser.error;
    if (failure !== undefined) throw new StoreFailedError(failure);
  }

  storageHealth(): StorageHealth {
    const failure = this.failure ?? this.materialiser.error;
    if (failure !== undefined) {
      return { status: 'degraded', reason: `the job store in ${this.dataDir} failed and refuses writes until restarted: ${errText(failure)}` };
    }
    if (this.spaceError !== undefined) {
      return { status: 'degraded', reason: `the data dir ${this.dataDir} has no space left (${errText(this.spaceError)}): new jobs and job updates are refused until space is freed` };
    }
    return { status: 'ok' };
  }

  /**
   * A write hit a full disk. Health turns degraded, and a timer probes for free space so health
   * (and a stalled materialiser batch) recover even when no write comes to try again.
   */
  private outOfSpace(err: unknown): void {
    if (this.spaceError === undefined) {
      this.logger.warn(`the data dir ${this.dataDir} is out of space: writes are refused until space is freed`, { error: errText(err) });
    }
    this.spaceError = err;
    this.spaceProbe ??= setInterval(() => void this.probeSpace(), this.spaceRetryMs).unref();
  }

  private spaceMaybeBack(): void {
    if (this.spaceError === undefined || this.materialiser.stalledOn !== undefined) return;
    this.spaceError = undefined;
    clearInterval(this.spaceProbe);
    this.spaceProbe = undefined;
    this.logger.info(`the data dir ${this.dataDir} has space again: writes are accepted`);
  }

  /**
   * While health is degraded: a real write decides whether it recovers. A batch of job files the
   * disk refused is retried; otherwise an empty commit goes through the group committer, and the
   * journal writes and syncs as many (blank) bytes as the batch it refused, then cuts them off
   * (writeBatch). Only a write that went through turns health ok: a small probe file that fits
   * where a batch does not must not report a full disk as healthy.
   */
  private async probeSpace(): Promise<void> {
    if (this.closing || this.probing) return;
    if (this.materialiser.stalledOn !== undefined) {
      this.materialiser.retryNow();
      return;
    }
    this.probing = true;
    try {
      await this.committer.submit([]);
    } catch {
      // Still full (writeBatch recorded it), or the store failed: health says so either way.
    } finally {
      this.probing = false;
    }
  }

  /** One journal write + fdatasync for everything submitted since the last one (group commit). */
  private async writeBatch(entries: JournalEntry[]): Promise<void> {
    try {
      if (this.failure !== undefined) throw new StoreFailedError(this.failure);
      await this.materialiser.roomFor(this.maxUnwrittenEntries);
      // A batch stalled on a full disk holds up everything behind it: refuse rather than queue.
      const stalled = this.materialiser.stalledOn;
      if (stalled !== undefined) throw new InsufficientStorageError(this.dataDir, stalled);
      let rotated: string | undefined;
      try {
        // An empty batch is the space probe (probeSpace), unless real entries joined it.
        if (entries.length === 0) await this.writer.probe(Math.min(MAX_PROBE_BYTES, Math.max(MIN_PROBE_BYTES, this.writer.lastRefusedBytes)));
        else rotated = await this.writer.write(entries);
      } catch (err) {
        if (isOutOfSpace(err)) {
          // The writer cut the journal back to its last durable length: nothing of this batch is
          // stored, and the next batch may go through once space is freed.
          this.outOfSpace(err);
          throw new InsufficientStorageError(this.dataDir, err);
        }
        // The journal is the durability point: after a failure it cannot undo, nothing can be promised.
        this.failure = err;
        this.logger.warn('journal write failed: the store refuses writes until it is reopened', { error: String(err) });
        throw new StoreFailedError(err);
      }
      this.spaceMaybeBack();
      if (entries.length === 0) return;
      this.publish(entries);
      void this.materialiser.enqueue(entries);
      if (rotated) void this.materialiser.checkpoint(rotated, 2);
    } catch (err) {
      for (const e of entries) if (e.t === 'job' && this.staged.get(e.rec.job_id) === e.rec) this.staged.delete(e.rec.job_id);
      throw err;
    }
  }

  /** The batch is durable: from here on reads see it (in journal order, so the last version wins). */
  private publish(entries: readonly JournalEntry[]): void {
    for (const e of entries) {
      if (e.t === 'job') {
        const { rec } = e;
        this.index.upsert(indexLineOf(rec, e.ord));
        if (e.idem) this.idempotency.put(e.idem);
        this.dirty.set(rec.job_id, rec);
        this.cache.set(rec.job_id, rec);
        this.jobWrites++;
        if (this.staged.get(rec.job_id) === rec) this.staged.delete(rec.job_id);
      } else {
        const pending = this.pendingEvents.get(e.ev.job_id);
        if (pending) pending.push(e.ev);
        else this.pendingEvents.set(e.ev.job_id, [e.ev]);
      }
    }
  }

  async createJob(record: JobRecord, idempotency?: IdempotencyRecord): Promise<void> {
    await this.create(record, idempotency, undefined);
  }

  async createJobWithEvent(record: JobRecord, event: NewJobEvent, idempotency?: IdempotencyRecord): Promise<JobEvent> {
    if (event.job_id !== record.job_id) throw new TypeError('the first event must belong to the job');
    const ev = await this.create(record, idempotency, event);
    if (!ev) throw new Error('unreachable: the event was not stored');
    return ev;
  }

  private async create(record: JobRecord, idempotency: IdempotencyRecord | undefined, event: NewJobEvent | undefined): Promise<JobEvent | undefined> {
    this.assertWritable();
    assertSafeJobId(record.job_id);
    const rec = toStoredRecord(record);
    if (idempotency && (idempotency.job_id !== rec.job_id || idempotency.tenant_id !== rec.tenant_id || idempotency.kind !== rec.kind)) {
      throw new TypeError('idempotency record must name the same job_id, tenant_id and kind as the job');
    }
    if (this.index.has(rec.job_id) || this.staged.has(rec.job_id)) throw new JobExistsError(rec.job_id);
    const ord = this.index.nextOrd();
    const ev = event ? this.stampEvent(event) : undefined;
    // Visible (and its idempotency record effective) only once the commit is durable: see publish().
    this.staged.set(rec.job_id, rec);
    const entries: JournalEntry[] = [idempotency ? { t: 'job', rec, ord, idem: { ...idempotency } } : { t: 'job', rec, ord }];
    if (ev) entries.push({ t: 'ev', ev });
    await this.committer.submit(entries);
    return ev;
  }

  /** Assigns the next global seq and the time; a full disk can refuse the seq reservation. */
  private stampEvent(event: NewJobEvent): JobEvent {
    let seq: number;
    try {
      seq = this.seq.next();
    } catch (err) {
      // Reserving a seq block rewrites store-meta.json, which a full disk refuses.
      if (!isOutOfSpace(err)) throw err;
      this.outOfSpace(err);
      throw new InsufficientStorageError(this.dataDir, err);
    }
    return toStoredEvent({ ...event, recorded_at: event.recorded_at ?? new Date().toISOString(), seq });
  }

  async updateJob(jobId: string, patch: JobPatch): Promise<JobRecord> {
    this.assertWritable();
    // Read-modify-write per job under a lock: concurrent updates of one job apply in call order,
    // each on top of the previous one. The journal entry is queued inside the lock (so the journal
    // order is the apply order); durability is awaited outside it, so group commit still batches.
    const { rec, durable } = await this.jobLocks.run(jobId, async () => {
      const loaded = await this.current(jobId);
      const cur = this.staged.get(jobId) ?? this.dirty.get(jobId) ?? this.cache.get(jobId) ?? loaded;
      const entry = this.index.get(jobId);
      if (!cur || !entry) throw new JobNotFoundError(jobId);
      this.assertWritable();
      if (patch.status !== undefined && patch.status !== cur.status) assertTransition(cur.status, patch.status);
      const next: Record<string, unknown> = { ...cur };
      for (const [k, v] of Object.entries(patch)) if (v !== undefined && PATCHABLE.has(k)) next[k] = v;
      next.updated_at = bumpTime(cur.updated_at);
      const stored = toStoredRecord(next as JobRecord);
      this.staged.set(jobId, stored);
      return { rec: stored, durable: this.committer.submit([{ t: 'job', rec: stored, ord: entry.ord }]) };
    });
    await durable;
    return rec;
  }

  reserveSeq(): number {
    this.assertWritable();
    return this.stampEvent({ job_id: '', event: 'seq', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} }).seq;
  }

  async appendEvent(event: NewJobEvent): Promise<JobEvent> {
    this.assertWritable();
    if (!this.index.has(event.job_id)) throw new JobNotFoundError(event.job_id);
    const ev = this.stampEvent(event);
    await this.committer.submit([{ t: 'ev', ev }]);
    return ev;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The latest version of a job: pending write, cache, or its file (which is then cached). */
  private async current(jobId: string): Promise<JobRecord | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const hot = this.dirty.get(jobId) ?? this.cache.get(jobId);
      if (hot) return hot;
      if (!this.index.has(jobId)) return undefined;
      const writesBefore = this.jobWrites;
      const fromDisk = await this.readJobFile(jobId);
      // A write during the read may have made what we read stale: retry from memory.
      if (this.jobWrites === writesBefore) {
        if (fromDisk) this.cache.set(jobId, fromDisk);
        return fromDisk;
      }
    }
    return this.dirty.get(jobId) ?? this.cache.get(jobId) ?? (await this.readJobFile(jobId));
  }

  private async readJobFile(jobId: string): Promise<JobRecord | undefined> {
    const file = jobFilePath(this.dataDir, jobId);
    let text: string;
    try {
      text = await fsp.readFile(file, 'utf8');
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      if (!this.index.has(jobId) || this.dirty.has(jobId)) return undefined;
      this.logger.warn(`job file of ${jobId} is missing: dropping the job from the index`, { job_id: jobId, file });
      this.dropFromIndex(jobId);
      return undefined;
    }
    let record: JobRecord | undefined;
    try {
      record = parseStoredRecord(JSON.parse(text));
    } catch {
      record = undefined;
    }
    if (record && record.job_id === jobId) return record;
    if (!this.index.has(jobId) || this.dirty.has(jobId)) return undefined;
    try {
      await this.quarantine.moveAside(file, `job file of ${jobId} is corrupt`, { job_id: jobId });
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
    this.dropFromIndex(jobId);
    return undefined;
  }

  /** A job whose file is gone or set aside leaves the live set; the drop line makes that stick. */
  private dropFromIndex(jobId: string): void {
    if (!this.index.has(jobId)) return;
    this.index.drop(jobId);
    this.cache.delete(jobId);
    void this.materialiser.run(() => this.indexLog.append([{ op: 'drop', job_id: jobId }]));
  }

  async getJob(jobId: string): Promise<JobRecord | undefined> {
    return this.current(jobId);
  }

  /** The latest version of a job when it is in memory (pending write or cache), without touching the disk. */
  peekJob(jobId: string): JobRecord | undefined {
    return this.dirty.get(jobId) ?? this.cache.get(jobId);
  }

  async listJobs(filter: JobListFilter): Promise<JobListPage> {
    const limit = Number.isFinite(filter.limit) ? Math.max(1, Math.floor(filter.limit)) : JOB_LIST_DEFAULT_LIMIT;
    const sort = filter.sort ?? '-created';
    const after = filter.cursor ? decodeCursor(filter.cursor, sort) : undefined;
    const words = searchWords(filter.q);
    // One clock for the whole page: a machine still billing is ranked by its cost at this moment.
    const now = Date.now();
    // A record that turns out corrupt is dropped from the index: recompute the page without it.
    for (let attempt = 0; ; attempt++) {
      const { entries, more, last } = this.index.page(filter.tenant_id, { status: filter.status, kind: filter.kind, words, sort }, limit, after, now);
      // A page of jobs in memory (the usual case) is read without a promise per job.
      const hot = entries.map((e) => this.peekJob(e.job_id));
      const records = hot.every((r) => r !== undefined) ? hot : await Promise.all(entries.map((e, i) => hot[i] ?? this.current(e.job_id)));
      const jobs = records.filter((r): r is JobRecord => r !== undefined);
      if (jobs.length === entries.length || attempt >= 4) {
        return { jobs, next_cursor: more && last ? encodeCursor(sort, last) : null };
      }
    }
  }

  countJobs(tenantId: string, kind?: JobKind, q?: string): JobCounts {
    return this.index.counts(tenantId, kind, searchWords(q));
  }

  async listJobsByStatus(statuses: readonly JobStatus[]): Promise<JobRecord[]> {
    const entries = this.index.byStatus(statuses);
    const out: (JobRecord | undefined)[] = new Array<JobRecord | undefined>(entries.length);
    await forEachLimit(entries.keys(), 16, async (i) => {
      const e = entries[i];
      if (e) out[i] = await this.current(e.job_id);
    });
    return out.filter((r): r is JobRecord => r !== undefined);
  }

  async listEvents(jobId: string, after?: number): Promise<JobEvent[]> {
    if (!this.index.has(jobId) && !this.pendingEvents.has(jobId)) return [];
    const events = await this.eventLocks.run(jobId, async () => {
      const fromFile = await readEventsFile(eventsFilePath(this.dataDir, jobId), this.quarantine);
      // Read and merged under the job's lock, so an event is in the file or still pending, never neither.
      const pending = this.pendingEvents.get(jobId) ?? [];
      const lastOnDisk = fromFile.length > 0 ? (fromFile[fromFile.length - 1]?.seq ?? 0) : 0;
      return [...fromFile, ...pending.filter((e) => e.seq > lastOnDisk)];
    });
    return after === undefined ? events : events.filter((e) => e.seq > after);
  }

  async *scanEvents(tenantId: string, jobId?: string): AsyncIterable<JobEvent> {
    const entries = jobId === undefined ? this.index.tenantEntries(tenantId) : [this.index.get(jobId)];
    for (const e of entries) {
      if (!e || e.tenant_id !== tenantId) continue;
      for (const ev of await this.listEvents(e.job_id)) yield ev;
    }
  }

  async getIdempotency(tenantId: string, kind: JobKind, key: string): Promise<IdempotencyRecord | undefined> {
    return this.idempotency.get(tenantId, kind, key);
  }

  async pruneIdempotency(maxAgeMs: number): Promise<number> {
    this.assertWritable();
    const cutoff = Date.now() - maxAgeMs;
    let pruned = 0;
    // In the materialiser's queue, so no idempotency line is appended while the file is rewritten.
    await this.materialiser.run(async () => {
      pruned = this.idempotency.prune(cutoff);
      if (pruned > 0) await this.idempotency.rewrite();
    });
    if (pruned > 0) this.logger.info(`pruned ${pruned} idempotency record(s)`, { max_age_ms: maxAgeMs });
    return pruned;
  }

  count(): number {
    return this.index.size;
  }

  /**
   * The highest event seq this store may have handed out (after a restart: the end of the reserved
   * block). No client can hold a larger one from this data dir.
   */
  get lastSeq(): number {
    return this.seq.last;
  }

  async flush(): Promise<void> {
    await this.committer.drain();
    await this.materialiser.idle();
    const failure = this.failure ?? this.materialiser.error;
    if (failure !== undefined) throw new StoreFailedError(failure);
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    clearInterval(this.spaceProbe);
    // A batch stalled on a full disk stays in the journal; the next open replays it.
    this.materialiser.stop();
    try {
      await this.committer.drain();
      await this.materialiser.idle();
      await this.writer.close();
      if (this.failure === undefined && this.materialiser.error === undefined) {
        // A clean close leaves no journal: every file is fsynced, so the next open replays nothing.
        await this.materialiser.checkpoint(this.writer.currentPath, 4);
        await this.materialiser.drain();
        if (this.indexLog.needsCompaction(this.index.size)) await this.indexLog.compact(this.index);
      }
    } finally {
      await this.indexLog.close().catch(() => undefined);
      await this.idempotency.close().catch(() => undefined);
      this.lock.release();
    }
    const failure = this.failure ?? this.materialiser.error;
    if (failure !== undefined) throw new StoreFailedError(failure);
  }
}
