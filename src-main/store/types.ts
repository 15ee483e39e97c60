import type { JobCounts, JobEvent, JobKind, JobRecord, JobSort, JobStatus } from '../../shared';

/**
 * The persistence port of design §9. The engine and the API depend on this interface only; the
 * implementation (./job-store.ts) shards job records on disk and never imports electron, so the
 * Electron app, the headless server and the CLI open the same data dir identically.
 */

/** Fields a job update may change. Status changes are checked against JOB_TRANSITIONS here. */
export type JobPatch = Partial<
  Pick<JobRecord, 'status' | 'message' | 'started_at' | 'finished_at' | 'progress' | 'result' | 'error' | 'error_code' | 'resources'>
>;

/** An event before the store stamps it with a global seq and a time. */
export type NewJobEvent = Omit<JobEvent, 'seq' | 'recorded_at'> & { recorded_at?: string };

export type IdempotencyRecord = {
  tenant_id: string;
  kind: JobKind;
  key: string;
  /** SHA-256 of the canonical request body: a replay with another body is a 422. */
  fingerprint: string;
  job_id: string;
  created_at: string;
};

export type JobListFilter = {
  tenant_id: string;
  status?: JobStatus | undefined;
  kind?: JobKind | undefined;
  /** Words that must all occur in the job's id, model, backend, message or error (case-insensitive). */
  q?: string | undefined;
  /** Default '-created' (newest first). */
  sort?: JobSort | undefined;
  limit: number;
  /** Opaque, from a previous page's next_cursor. */
  cursor?: string | undefined;
};

export type JobListPage = { jobs: JobRecord[]; next_cursor: string | null };

/** Structured fields of a log line. */
export type LogFields = Record<string, unknown>;

/** What the store logs: open/recovery facts (info) and anything set aside or taken over (warn). */
export interface StoreLogger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
}

/**
 * Records and events handed out are deep-frozen snapshots (the store caches them): copy before
 * changing one, e.g. `{ ...record, message }` or `structuredClone(record)`.
 */
export interface JobStore {
  readonly dataDir: string;

  /**
   * Durable (on disk, fsynced) when the promise resolves. Fails if the job_id exists. The record is
   * validated against JobRecordSchema; job_id must match /^[A-Za-z0-9_.-]{1,128}$/ (it names a
   * file). The idempotency record (same job_id) is stored in the same commit; it replaces any
   * record under its (tenant, kind, key): deciding whether an old one has expired is the caller's.
   */
  createJob(record: JobRecord, idempotency?: IdempotencyRecord): Promise<void>;
  /**
   * createJob with the job's first event in the same commit (one fdatasync instead of two before
   * an accepted job can be acknowledged). Resolves with the stored event.
   */
  createJobWithEvent(record: JobRecord, event: NewJobEvent, idempotency?: IdempotencyRecord): Promise<JobEvent>;
  /** Applies the patch, bumps updated_at, enforces the status transition table; durable on resolve. */
  updateJob(jobId: string, patch: JobPatch): Promise<JobRecord>;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  /** The job when its latest version is in memory (recently written or read); undefined otherwise, even if it exists. */
  peekJob(jobId: string): JobRecord | undefined;
  /** In the filter's sort order (newest first by default), tenant-scoped, with cursor pagination. Throws InvalidCursorError. */
  listJobs(filter: JobListFilter): Promise<JobListPage>;
  /** Counts of a tenant's jobs per status (of `kind` when given) and per kind, from the in-memory index; `q` as in listJobs. */
  countJobs(tenantId: string, kind?: JobKind, q?: string): JobCounts;
  /** Every job, any tenant, in one of these statuses, oldest first (start-up recovery). */
  listJobsByStatus(statuses: readonly JobStatus[]): Promise<JobRecord[]>;

  /** Assigns the next global seq (monotonic across restarts) and appends to the job's log; durable on resolve. */
  appendEvent(event: NewJobEvent): Promise<JobEvent>;
  /**
   * The next global seq for an event kept outside the job logs (a sweep's events on the tenant
   * feed): unique and increasing with the job events, across restarts. Throws
   * InsufficientStorageError when the seq reservation cannot be written.
   */
  reserveSeq(): number;
  /** The job's events in seq order, those with seq > after when given. */
  listEvents(jobId: string, after?: number): Promise<JobEvent[]>;
  /** Events of all of one tenant's jobs (or one job), for the metrics summary. */
  scanEvents(tenantId: string, jobId?: string): AsyncIterable<JobEvent>;

  getIdempotency(tenantId: string, kind: JobKind, key: string): Promise<IdempotencyRecord | undefined>;
  /** Drops idempotency records older than maxAgeMs; returns how many went. */
  pruneIdempotency(maxAgeMs: number): Promise<number>;

  /** Number of stored jobs (all tenants). */
  count(): number;
  /** The highest event seq this store may have handed out: no client can hold a larger one. */
  readonly lastSeq: number;
  /**
   * 'degraded' while the data dir is out of space (writes answer InsufficientStorageError and are
   * retried in the background until space is back) or after a failure that needs a reopen.
   */
  storageHealth(): StorageHealth;
  /** Resolves when every write submitted so far is durable and materialised in its own file. */
  flush(): Promise<void>;
  /** Flushes pending writes and releases the data-dir lock. */
  close(): Promise<void>;
}

export type StorageHealth = { status: 'ok' } | { status: 'degraded'; reason: string };

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(`data dir ${dataDir} is in use by another benchdesk process (pid ${holderPid})`);
    this.name = 'DataDirLockedError';
  }
}

export class JobExistsError extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} already exists`);
    this.name = 'JobExistsError';
  }
}

export class JobNotFoundError extends Error {
  constructor(readonly jobId: string) {
    super(`job not found: ${jobId}`);
    this.name = 'JobNotFoundError';
  }
}

export class InvalidCursorError extends Error {
  constructor(readonly cursor: string) {
    super('invalid cursor');
    this.name = 'InvalidCursorError';
  }
}

/** The store hit an I/O error it cannot recover from in-process; reopen it (the journal replays). */
export class StoreFailedError extends Error {
  constructor(override readonly cause: unknown) {
    super(`job store failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreFailedError';
  }
}

/**
 * The data dir's file system is full (ENOSPC) or over quota (EDQUOT): nothing of this write was
 * stored. Not fatal: the store keeps answering reads and takes writes again once space is back.
 */
export class InsufficientStorageError extends Error {
  readonly code = 'insufficient_storage';
  constructor(
    readonly dataDir: string,
    override readonly cause: unknown,
  ) {
    const errno = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.name) : 'error';
    super(`the data dir ${dataDir} has no space left (${errno}); nothing was stored. Free some space there and retry`);
    this.name = 'InsufficientStorageError';
  }
}
