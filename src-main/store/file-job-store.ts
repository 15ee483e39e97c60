import { assertTransition, searchWords, type JobCounts, type JobEvent, type JobKind, type JobRecord, type JobStatus } from '../../shared';
import { isOutOfSpace } from './atomic-file';
import type { DataDirLock } from './data-dir-lock';
import { PendingEvents } from './pending-events';
import { GroupCommitter } from './group-commit';
import type { IdempotencyTable } from './idempotency-table';
import type { IndexLog } from './index-log';
import { indexLineOf, type JobIndex } from './job-index';
import type { JournalEntry, JournalWriter } from './journal';
import { KeyedMutex } from './keyed-mutex';
import { assertSafeJobId } from './layout';
import { LruCache } from './lru';
import { Materialiser } from './materialiser';
import type { Quarantine } from './quarantine';
import { toStoredEvent, toStoredRecord } from './records';
import { readJobFile } from './job-file';
import { jobsByStatus, pageOfJobs } from './job-queries';
import { DEFAULTS, PATCHABLE, type OpenJobStoreOptions } from './store-options';
import type { SeqAllocator } from './store-meta';
import { SpaceWatch } from './space-watch';
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

export type { OpenJobStoreOptions } from './store-options';

/** The space probe writes as much as the journal batch a full disk refused, within these bounds. */
const MIN_PROBE_BYTES = 64 * 1024;
const MAX_PROBE_BYTES = 8 * 1024 * 1024;

function bumpTime(previous: string): string {
  const now = Date.now();
  const prev = Date.parse(previous);
  // updated_at moves forward even if two updates land in the same millisecond or the clock steps back.
  return new Date(Number.isNaN(prev) || now > prev ? now : prev + 1).toISOString();
}

/**
 * The job store of one data dir (design §9): a journal with group commit as the durability point,
 * one file per job and per job's events written behind it, an index and an LRU cache in memory.
 * Opened by openJobStore (job-store.ts), which replays what a crash left.
 */
export class FileJobStore implements JobStore {
  private readonly cache: LruCache<string, JobRecord>;
  /** Journaled but not yet in its own file: reads must see these first. */
  private readonly dirty = new Map<string, JobRecord>();
  /**
   * Submitted to the journal but not durable yet: the base of the next update of the job and the
   * duplicate-id check, never what a read sees (a job is visible only once it is durable).
   */
  private readonly staged = new Map<string, JobRecord>();
  /** Events journaled but not yet in their job's file. */
  private readonly events: PendingEvents;
  private readonly eventLocks = new KeyedMutex();
  private readonly jobLocks = new KeyedMutex();
  readonly materialiser: Materialiser;
  private readonly committer: GroupCommitter<JournalEntry>;
  private writer!: JournalWriter;
  private seq!: SeqAllocator;
  private jobWrites = 0;
  private failure: unknown;
  private readonly space: SpaceWatch;
  private closing: Promise<void> | undefined;
  private readonly maxUnwrittenEntries: number;

  constructor(
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
    const spaceRetryMs = options.spaceRetryMs ?? 1000;
    this.maxUnwrittenEntries = options.maxUnwrittenEntries ?? DEFAULTS.maxUnwrittenEntries;
    this.events = new PendingEvents(dataDir, quarantine, this.eventLocks);
    this.materialiser = new Materialiser({
      spaceRetryMs,
      onSpace: (err) => {
        if (err === undefined) this.space.maybeBack();
        else this.space.full(err);
      },
      dataDir,
      indexLog,
      idempotency,
      eventLocks: this.eventLocks,
      quarantine,
      onJobWritten: (rec) => {
        if (this.dirty.get(rec.job_id) === rec) this.dirty.delete(rec.job_id);
      },
      onEventsWritten: (jobId, written) => this.events.written(jobId, written),
    });
    this.committer = new GroupCommitter((entries) => this.writeBatch(entries));
    this.space = new SpaceWatch({
      dataDir,
      logger,
      retryMs: spaceRetryMs,
      stalled: () => this.materialiser.stalledOn,
      retryStalled: () => this.materialiser.retryNow(),
      commitEmpty: () => this.committer.submit([]),
      closed: () => this.closing !== undefined,
    });
  }

  /** Opening gives the store its seq allocator and journal once the journal a crash left is replayed. */
  attach(seq: SeqAllocator, writer: JournalWriter): void {
    this.seq = seq;
    this.writer = writer;
  }

  // ---- writes --------------------------------------------------------------------------------

  private assertWritable(): void {
    if (this.closing) throw new Error('job store is closed');
    const failure = this.failure ?? this.materialiser.error;
    if (failure !== undefined) throw new StoreFailedError(failure);
  }

  storageHealth(): StorageHealth {
    return this.space.health(this.failure ?? this.materialiser.error);
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
          this.space.full(err);
          throw new InsufficientStorageError(this.dataDir, err);
        }
        // The journal is the durability point: after a failure it cannot undo, nothing can be promised.
        this.failure = err;
        this.logger.warn('journal write failed: the store refuses writes until it is reopened', { error: String(err) });
        throw new StoreFailedError(err);
      }
      this.space.maybeBack();
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
        this.events.add(e.ev);
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
      this.space.full(err);
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

  private readJobFile(jobId: string): Promise<JobRecord | undefined> {
    return readJobFile(jobId, { dataDir: this.dataDir, logger: this.logger, quarantine: this.quarantine, live: () => this.index.has(jobId) && !this.dirty.has(jobId), drop: () => this.dropFromIndex(jobId) });
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

  listJobs(filter: JobListFilter): Promise<JobListPage> {
    return pageOfJobs(this.index, filter, (id) => this.peekJob(id), (id) => this.current(id));
  }

  countJobs(tenantId: string, kind?: JobKind, q?: string): JobCounts {
    return this.index.counts(tenantId, kind, searchWords(q));
  }

  listJobsByStatus(statuses: readonly JobStatus[]): Promise<JobRecord[]> {
    return jobsByStatus(this.index, statuses, (id) => this.current(id));
  }

  listEvents(jobId: string, after?: number): Promise<JobEvent[]> {
    return this.events.list(jobId, this.index.has(jobId), after);
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
    this.space.stop();
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
