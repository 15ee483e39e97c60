import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  isTerminal,
  JobRecordSchema,
  type JobEvent,
  type JobKind,
  type JobRecord,
  type JobRequestByKind,
  type JobStatus,
} from '../../shared';
import { isOutOfSpace } from '../store/atomic-file';
import { InsufficientStorageError, type IdempotencyRecord, type JobStore } from '../store/types';
import { EventBus } from './event-bus';
import { JobSecrets, Redactor } from './redact';
import { JobRecorder, abortError, errorCode, errorMessage, errorType } from './job-recorder';
import { JobFailure, type AnyJobHandler, type EmitInput, type JobContext, type JobHandler, type Logger } from './types';

export type EngineOptions = {
  store: JobStore;
  handlers: readonly AnyJobHandler[];
  /** Running jobs at once (design §4 default 4); the rest wait `queued`, FIFO. */
  concurrency?: number;
  logger: Logger;
  now?: () => Date;
  bus?: EventBus;
  /** Where job credentials live (default: `<store.dataDir>/secrets`). */
  secrets?: JobSecrets;
};

type Running = { controller: AbortController; done: Promise<void>; cancelRequested?: boolean };

export class EngineClosedError extends Error {
  constructor() {
    super('the job engine is shutting down and accepts no new jobs');
    this.name = 'EngineClosedError';
  }
}

/**
 * The job engine: a FIFO queue with a concurrency limit, one AbortController per running job,
 * status changes through the store (which enforces the transition table), and an event for every
 * transition and timed step. Workflows plug in as one handler per kind.
 */
export class JobEngine {
  readonly bus: EventBus;
  private readonly store: JobStore;
  private readonly handlers = new Map<JobKind, AnyJobHandler>();
  private concurrency: number;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly queue: string[] = [];
  private readonly running = new Map<string, Running>();
  private accepting = true;
  private readonly secrets: JobSecrets;
  /** The job's writes: events, progress, resources, its end. */
  private readonly jobs: JobRecorder;

  constructor(options: EngineOptions) {
    this.store = options.store;
    for (const handler of options.handlers) this.handlers.set(handler.kind, handler);
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.logger = options.logger;
    this.now = options.now ?? (() => new Date());
    // Events before the store's current seq were never published on this bus: a feed resuming from
    // one of them gets a reset, not a silent gap.
    this.bus = options.bus ?? new EventBus(undefined, { startSeq: options.store.lastSeq });
    this.secrets = options.secrets ?? new JobSecrets(path.join(options.store.dataDir, 'secrets'));
    this.jobs = new JobRecorder({ store: this.store, bus: this.bus, logger: this.logger, now: this.now, secrets: this.secrets, accepting: () => this.accepting });
  }

  handlerFor<K extends JobKind>(kind: K): JobHandler<K> | undefined {
    return this.handlers.get(kind) as JobHandler<K> | undefined;
  }

  /** Changes the limit at once: a higher one starts queued jobs now; a lower one lets running jobs finish. */
  setConcurrency(limit: number): void {
    this.concurrency = Math.max(1, Math.floor(limit));
    this.pump();
  }

    get runningCount(): number {
    return this.running.size;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  /**
   * Start-up recovery (design §3): `running` jobs were interrupted by a crash → `failed` with
   * error_code "interrupted", after their kind's recovery hook (which releases rented machines);
   * `queued` jobs run again, oldest first.
   */
  async recover(): Promise<{ interrupted: number; requeued: number }> {
    const interrupted = await this.store.listJobsByStatus(['running']);
    for (const job of interrupted) {
      this.jobs.tenants.set(job.job_id, job.tenant_id);
      const handler = this.handlers.get(job.kind);
      if (handler?.recover) {
        try {
          await (handler as JobHandler).recover?.(job, this.jobs.recoveryContext(job));
        } catch (err) {
          this.logger.error('recovery hook failed', { job_id: job.job_id, error: errorMessage(err) });
          await this.jobs.emit(job.job_id, { event: 'job.recover', status: 'error', message: errorMessage(err), error_type: errorType(err) });
        }
      }
      await this.jobs.finish(job.job_id, 'failed', {
        message: 'the server stopped while this job was running',
        error: 'the server stopped while this job was running',
        error_code: 'interrupted',
      });
    }
    const queued = await this.store.listJobsByStatus(['queued']);
    for (const job of queued) {
      this.jobs.tenants.set(job.job_id, job.tenant_id);
      this.queue.push(job.job_id);
    }
    if (interrupted.length || queued.length) {
      this.logger.info('recovered jobs', { interrupted: interrupted.length, requeued: queued.length });
    }
    this.pump();
    return { interrupted: interrupted.length, requeued: queued.length };
  }

  /** Stores the job durably (with its idempotency record) and queues it. */
  async submit<K extends JobKind>(
    tenantId: string,
    kind: K,
    request: JobRequestByKind[K],
    idempotency?: Omit<IdempotencyRecord, 'job_id' | 'created_at'>,
  ): Promise<JobRecord> {
    if (!this.accepting) throw new EngineClosedError();
    const at = this.now().toISOString();
    const jobId = randomUUID();
    // Credentials never enter the record or the journal: they go to a 0600 file first.
    const stored = await this.secrets.seal(jobId, request).catch((err: unknown) => {
      // A full disk refusing the credentials file is the same 507 as one refusing the job.
      throw isOutOfSpace(err) ? new InsufficientStorageError(this.store.dataDir, err) : err;
    });
    // Parsed, not asserted: the sealed request must still be this kind's stored request.
    const record = JobRecordSchema.parse({
      job_id: jobId,
      tenant_id: tenantId,
      kind,
      status: 'queued',
      message: 'accepted',
      created_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
      request: stored as JobRecord['request'],
      progress: null,
      result: null,
      error: null,
      error_code: null,
      resources: null,
    });
    let queued: JobEvent;
    try {
      // The record and its job.queued event share one commit: one fdatasync before the 202, not two.
      queued = await this.store.createJobWithEvent(
        record,
        { job_id: jobId, event: 'job.queued', status: 'info', message: 'accepted', duration_ms: null, error_type: null, labels: { kind }, recorded_at: at },
        idempotency ? { ...idempotency, job_id: record.job_id, created_at: at } : undefined,
      );
    } catch (err) {
      await this.secrets.discard(jobId).catch(() => undefined);
      throw err;
    }
    this.jobs.tenants.set(record.job_id, tenantId);
    this.bus.publish(tenantId, queued);
    this.queue.push(record.job_id);
    this.pump();
    return record;
  }

  /**
   * Cancels a queued job at once, or aborts a running one (its workflow cleans up, then it ends
   * `cancelled`). Returns the status after the request; terminal jobs are left as they are.
   */
  async cancel(jobId: string): Promise<JobStatus | undefined> {
    const job = await this.store.getJob(jobId);
    if (!job) return undefined;
    if (isTerminal(job.status)) return job.status;
    const index = this.queue.indexOf(jobId);
    if (index >= 0) {
      this.queue.splice(index, 1);
      try {
        // No retry here: the caller is waiting, and on a full disk gets the error (507) at once.
        await this.jobs.finish(jobId, 'cancelled', { message: 'cancelled before it started' }, undefined, undefined, false);
      } catch (err) {
        this.queue.splice(Math.min(index, this.queue.length), 0, jobId);
        throw err;
      }
      return 'cancelled';
    }
    const running = this.running.get(jobId);
    if (running) {
      // Flag first (synchronously): two concurrent cancels must not both record and abort.
      if (!running.controller.signal.aborted && !running.cancelRequested) {
        running.cancelRequested = true;
        await this.jobs.record(jobId, { event: 'job.cancel_requested', status: 'info', message: 'cancellation requested' });
        running.controller.abort('cancelled');
      }
      return 'running';
    }
    // Queued in the store but not in our queue (submitted by a process we recovered from): cancel.
    if (job.status === 'queued') {
      await this.jobs.finish(jobId, 'cancelled', { message: 'cancelled before it started' }, undefined, undefined, false);
      return 'cancelled';
    }
    return job.status;
  }

  /** Waits until a running job has finished (tests, shutdown). */
  async settled(jobId: string): Promise<void> {
    await this.running.get(jobId)?.done;
  }

  /** Resolves when nothing is queued or running (tests and benchmarks). */
  async idle(pollMs = 5): Promise<void> {
    while (this.queue.length > 0 || this.running.size > 0) {
      await Promise.all([...this.running.values()].map((r) => r.done));
      if (this.queue.length > 0 && this.running.size === 0) await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /**
   * Graceful shutdown: stop accepting, let running jobs finish for up to graceMs, then abort them
   * (their cleanup still runs) and wait for them to record their end.
   */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.accepting = false;
    this.queue.length = 0; // queued jobs stay `queued` on disk and run on the next start
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const r of this.running.values()) r.controller.abort('shutdown');
      await all();
    }
  }

  private pump(): void {
    while (this.accepting && this.running.size < this.concurrency && this.queue.length > 0) {
      const jobId = this.queue.shift();
      if (jobId === undefined) break;
      const controller = new AbortController();
      const entry: Running = { controller, done: Promise.resolve() };
      this.running.set(jobId, entry);
      entry.done = this.execute(jobId, controller)
        .catch((err: unknown) => this.logger.error('job execution crashed', { job_id: jobId, error: errorMessage(err) }))
        .finally(() => {
          this.running.delete(jobId);
          this.pump();
        });
    }
  }

  private async execute(jobId: string, controller: AbortController): Promise<void> {
    const job = await this.store.getJob(jobId);
    if (!job || job.status !== 'queued') return;
    const handler = this.handlers.get(job.kind);
    if (!handler) {
      await this.jobs.finish(jobId, 'failed', {
        message: `no workflow is available for job kind ${job.kind}`,
        error: `no workflow is available for job kind ${job.kind}`,
        error_code: 'unsupported_kind',
      });
      return;
    }
    let started: JobRecord;
    try {
      started = await this.jobs.transition(jobId, 'running', { message: 'running', started_at: this.now().toISOString() });
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      // Still `queued` on disk and in every read: try it again once the disk may have room.
      this.logger.warn('cannot start a job (disk full): it stays queued and is retried', { job_id: jobId });
      setTimeout(() => {
        if (!this.accepting) return;
        this.queue.unshift(jobId);
        this.pump();
      }, 1000).unref();
      return;
    }
    await this.jobs.record(jobId, { event: 'job.running', status: 'info', message: 'running' });
    const t0 = performance.now();
    try {
      const request = await this.secrets.unseal(jobId, started.request);
      this.jobs.redactors.set(jobId, Redactor.forRequest(request));
      const ctx = this.jobs.jobContext(started, controller, request);
      const result = await (handler as JobHandler).run(ctx as JobContext);
      if (controller.signal.aborted) throw abortError(controller.signal);
      await this.jobs.finish(jobId, 'succeeded', { message: 'succeeded', result }, performance.now() - t0);
    } catch (err) {
      const elapsed = performance.now() - t0;
      if (controller.signal.aborted && controller.signal.reason === 'cancelled') {
        await this.jobs.finish(jobId, 'cancelled', { message: 'cancelled' }, elapsed);
      } else if (controller.signal.aborted && controller.signal.reason instanceof JobFailure) {
        // The workflow stopped itself (a spend limit reached): its cleanup ran, the reason is the failure.
        const stop = controller.signal.reason;
        await this.jobs.finish(jobId, 'failed', { message: stop.message, error: stop.message, error_code: stop.code }, elapsed, stop.name);
      } else if (controller.signal.aborted && controller.signal.reason === 'shutdown') {
        await this.jobs.finish(jobId, 'failed', {
          message: 'the server shut down before this job finished',
          error: 'the server shut down before this job finished',
          error_code: 'interrupted',
        }, elapsed);
      } else {
        const code = err instanceof JobFailure ? err.code : errorCode(err);
        await this.jobs.finish(jobId, 'failed', { message: errorMessage(err), error: errorMessage(err), error_code: code }, elapsed, errorType(err) ?? undefined);
      }
    }
  }

  /** An event on a job (any status): the instance service and the leases write on ended jobs too. */
  emit(jobId: string, input: EmitInput): Promise<JobEvent> {
    return this.jobs.emit(jobId, input);
  }
}

export { errorMessage };
