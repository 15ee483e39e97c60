import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  isTerminal,
  JobRecordSchema,
  type EventLabels,
  type JobEvent,
  type JobKind,
  type JobProgress,
  type JobRecord,
  type JobRequestByKind,
  type JobResources,
  type JobStatus,
} from '../../shared';
import { isOutOfSpace } from '../store/atomic-file';
import { InsufficientStorageError, type IdempotencyRecord, type JobPatch, type JobStore } from '../store/types';
import { EventBus } from './event-bus';
import { JobSecrets, Redactor } from './redact';
import { roundMs, timed } from '../events/timed';
import { JobFailure, type AnyJobHandler, type EmitInput, type JobContext, type JobHandler, type Logger, type RecoveryContext } from './types';

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
  private readonly tenants = new Map<string, string>();
  private accepting = true;
  private readonly secrets: JobSecrets;
  /**
   * What a job holds (or no longer holds) that a full disk kept from its record: written with the
   * next write of the job that goes through, at the latest with its end, which is retried until
   * space returns. So a machine the marketplace confirmed destroyed is never left `released: false`.
   */
  private readonly unrecordedResources = new Map<string, JobResources>();
  /** Per running job: its request's secrets, masked in everything the job records (see Redactor). */
  private readonly redactors = new Map<string, Redactor>();
  private static readonly URLS_ONLY = new Redactor();

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
      this.tenants.set(job.job_id, job.tenant_id);
      const handler = this.handlers.get(job.kind);
      if (handler?.recover) {
        try {
          await (handler as JobHandler).recover?.(job, this.recoveryContext(job));
        } catch (err) {
          this.logger.error('recovery hook failed', { job_id: job.job_id, error: errorMessage(err) });
          await this.emit(job.job_id, { event: 'job.recover', status: 'error', message: errorMessage(err), error_type: errorType(err) });
        }
      }
      await this.finish(job.job_id, 'failed', {
        message: 'the server stopped while this job was running',
        error: 'the server stopped while this job was running',
        error_code: 'interrupted',
      });
    }
    const queued = await this.store.listJobsByStatus(['queued']);
    for (const job of queued) {
      this.tenants.set(job.job_id, job.tenant_id);
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
    this.tenants.set(record.job_id, tenantId);
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
        await this.finish(jobId, 'cancelled', { message: 'cancelled before it started' }, undefined, undefined, false);
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
        await this.record(jobId, { event: 'job.cancel_requested', status: 'info', message: 'cancellation requested' });
        running.controller.abort('cancelled');
      }
      return 'running';
    }
    // Queued in the store but not in our queue (submitted by a process we recovered from): cancel.
    if (job.status === 'queued') {
      await this.finish(jobId, 'cancelled', { message: 'cancelled before it started' }, undefined, undefined, false);
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
      await this.finish(jobId, 'failed', {
        message: `no workflow is available for job kind ${job.kind}`,
        error: `no workflow is available for job kind ${job.kind}`,
        error_code: 'unsupported_kind',
      });
      return;
    }
    let started: JobRecord;
    try {
      started = await this.transition(jobId, 'running', { message: 'running', started_at: this.now().toISOString() });
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      // Still `queued` on disk and in every read: try it again once the disk may have room.
      this.requeueLater(jobId);
      return;
    }
    await this.record(jobId, { event: 'job.running', status: 'info', message: 'running' });
    const t0 = performance.now();
    try {
      const request = await this.secrets.unseal(jobId, started.request);
      this.redactors.set(jobId, Redactor.forRequest(request));
      const ctx = this.jobContext(started, controller, request);
      const result = await (handler as JobHandler).run(ctx as JobContext);
      if (controller.signal.aborted) throw abortError(controller.signal);
      await this.finish(jobId, 'succeeded', { message: 'succeeded', result }, performance.now() - t0);
    } catch (err) {
      const elapsed = performance.now() - t0;
      if (controller.signal.aborted && controller.signal.reason === 'cancelled') {
        await this.finish(jobId, 'cancelled', { message: 'cancelled' }, elapsed);
      } else if (controller.signal.aborted && controller.signal.reason instanceof JobFailure) {
        // The workflow stopped itself (a spend limit reached): its cleanup ran, the reason is the failure.
        const stop = controller.signal.reason;
        await this.finish(jobId, 'failed', { message: stop.message, error: stop.message, error_code: stop.code }, elapsed, stop.name);
      } else if (controller.signal.aborted && controller.signal.reason === 'shutdown') {
        await this.finish(jobId, 'failed', {
          message: 'the server shut down before this job finished',
          error: 'the server shut down before this job finished',
          error_code: 'interrupted',
        }, elapsed);
      } else {
        const code = err instanceof JobFailure ? err.code : errorCode(err);
        await this.finish(jobId, 'failed', { message: errorMessage(err), error: errorMessage(err), error_code: code }, elapsed, errorType(err) ?? undefined);
      }
    }
  }

  private jobContext(job: JobRecord, controller: AbortController, request: Record<string, unknown>): JobContext {
    const jobId = job.job_id;
    const signal = controller.signal;
    // The running cost rides along with every progress write, so a phase change does not hide it.
    let progress: JobProgress = { phase: 'start', detail: null, percent: null };
    const logger = childLogger(this.logger, { job_id: jobId, kind: job.kind }, this.redactorOf(jobId));
    return {
      job,
      request: request as unknown as JobRequestByKind[JobKind],
      signal,
      logger,
      step: <T>(event: string, fn: () => Promise<T>, labels?: EventLabels): Promise<T> =>
        timed((input) => this.record(jobId, input), event, fn, labels ? { labels } : {}),
      info: async (event, message, labels) => {
        await this.record(jobId, { event, status: 'info', message, ...(labels ? { labels } : {}) });
      },
      emit: async (input) => {
        await this.record(jobId, input);
      },
      setProgress: async (phase, detail = null, percent = null) => {
        progress = { ...progress, phase, detail, percent };
        await this.bestEffort(jobId, 'progress', () => this.store.updateJob(jobId, { progress }));
      },
      setCost: async (cost) => {
        progress = { ...progress, cost_usd: cost.cost_usd, dph_total: cost.dph_total };
        await this.bestEffort(jobId, 'progress', () => this.store.updateJob(jobId, { progress }));
      },
      stop: (failure) => {
        if (!signal.aborted) controller.abort(failure);
      },
      // A workflow that cannot record what it holds keeps running (and releases it in its cleanup).
      setResources: (patch) => this.recordResources(jobId, patch),
    };
  }

  private recoveryContext(job: JobRecord): RecoveryContext {
    return {
      logger: childLogger(this.logger, { job_id: job.job_id, kind: job.kind }, JobEngine.URLS_ONLY),
      emit: async (input) => {
        await this.emit(job.job_id, input);
      },
      setResources: (patch) => this.recordResources(job.job_id, patch),
    };
  }

  /** Merges into the job's resources; on a full disk keeps the patch for the job's next write (see unrecordedResources). */
  private async recordResources(jobId: string, patch: JobResources): Promise<void> {
    const pending: JobResources = { ...this.unrecordedResources.get(jobId), ...patch };
    this.unrecordedResources.set(jobId, pending);
    try {
      await this.mergeResources(jobId, pending);
      if (this.unrecordedResources.get(jobId) === pending) this.unrecordedResources.delete(jobId);
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      this.logger.warn('resources not recorded yet (disk full): they are written with the end of the job', { job_id: jobId, resources: pending, error: err.message });
    }
  }

  private async mergeResources(jobId: string, patch: JobResources): Promise<void> {
    const current = await this.store.getJob(jobId);
    await this.store.updateJob(jobId, { resources: { ...(current?.resources ?? {}), ...patch } });
  }

  private async transition(jobId: string, status: JobStatus, patch: Omit<JobPatch, 'status'>): Promise<JobRecord> {
    return this.store.updateJob(jobId, { ...patch, status });
  }

  private redactorOf(jobId: string): Redactor {
    return this.redactors.get(jobId) ?? JobEngine.URLS_ONLY;
  }

  private async finish(
    jobId: string,
    status: 'succeeded' | 'failed' | 'cancelled',
    rawPatch: Omit<JobPatch, 'status' | 'finished_at'>,
    durationMs?: number,
    errorTypeName?: string,
    retryOnFullDisk = true,
  ): Promise<void> {
    // A driver's or an upstream service's words may quote a URL with its password: one pass over
    // everything the job's end records (message, error, the result's text).
    const redact = this.redactorOf(jobId);
    const patch: Omit<JobPatch, 'status' | 'finished_at'> = {
      ...rawPatch,
      ...(rawPatch.message != null ? { message: redact.text(rawPatch.message) } : {}),
      ...(rawPatch.error != null ? { error: redact.text(rawPatch.error) } : {}),
      ...(rawPatch.result != null ? { result: redact.deep(rawPatch.result) } : {}),
    };
    await this.persistEnd(jobId, status, patch, retryOnFullDisk);
    await this.record(jobId, {
      event: `job.${status}`,
      status: status === 'succeeded' ? 'ok' : status === 'failed' ? 'error' : 'info',
      message: patch.message ?? status,
      duration_ms: durationMs === undefined ? null : roundMs(durationMs),
      error_type: errorTypeName ?? null,
      labels: patch.error_code ? { error_code: patch.error_code } : {},
    });
    this.tenants.delete(jobId);
    this.redactors.delete(jobId);
    // After the terminal event (observers see the status and the event together): the job's credentials file is not needed any more.
    await this.secrets.discard(jobId).catch((err: unknown) => this.logger.warn('could not delete the job credentials file', { job_id: jobId, error: errorMessage(err) }));
  }

  /**
   * The end of a job must reach the store, or it would show `running` until a restart: while the
   * disk is full the write is retried (0.5 s, 1 s … 5 s apart) until it goes through or the engine
   * shuts down (then start-up recovery ends the job as interrupted).
   */
  private async persistEnd(jobId: string, status: JobStatus, patch: Omit<JobPatch, 'status' | 'finished_at'>, retry: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const held = this.unrecordedResources.get(jobId);
        const resources = held ? { ...(await this.store.getJob(jobId))?.resources, ...held } : undefined;
        await this.transition(jobId, status, { ...patch, ...(resources ? { resources } : {}), finished_at: this.now().toISOString() });
        if (held && this.unrecordedResources.get(jobId) === held) this.unrecordedResources.delete(jobId);
        return;
      } catch (err) {
        if (!retry || !(err instanceof InsufficientStorageError) || !this.accepting) throw err;
        if (attempt === 0) this.logger.warn('cannot record the end of a job (disk full): retrying until space is freed', { job_id: jobId, status, error: err.message });
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5_000)));
      }
    }
  }

  private requeueLater(jobId: string): void {
    this.logger.warn('cannot start a job (disk full): it stays queued and is retried', { job_id: jobId });
    setTimeout(() => {
      if (!this.accepting) return;
      this.queue.unshift(jobId);
      this.pump();
    }, 1000).unref();
  }

  /**
   * An event while a job runs. A full disk must not break the workflow (its cleanup, e.g. releasing
   * a rented machine, still has to run), so the event is dropped with a warn line instead.
   */
  private async record(jobId: string, input: EmitInput): Promise<void> {
    await this.bestEffort(jobId, input.event, () => this.emit(jobId, input));
  }

  private async bestEffort(jobId: string, what: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      this.logger.warn('not recorded (disk full)', { job_id: jobId, what, error: err.message });
    }
  }

  async emit(jobId: string, input: EmitInput): Promise<JobEvent> {
    const event = await this.store.appendEvent({
      job_id: jobId,
      event: input.event,
      status: input.status,
      // Events are served and stored: a URL with a password, or a secret of the job, is masked.
      message: input.message == null ? null : this.redactorOf(jobId).text(input.message),
      duration_ms: input.duration_ms ?? null,
      error_type: input.error_type ?? null,
      labels: this.redactorOf(jobId).deep(input.labels ?? {}),
      recorded_at: this.now().toISOString(),
    });
    const tenantId = this.tenants.get(jobId) ?? (await this.store.getJob(jobId))?.tenant_id;
    if (tenantId) this.bus.publish(tenantId, event);
    return event;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

/** Provider errors carry a stable snake_case `code` (llmserver_unreachable, instance_failed…). */
function errorCode(err: unknown): string {
  const code = err !== null && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z][a-z0-9_]{1,63}$/.test(code) ? code : 'internal';
}

function errorType(err: unknown): string | null {
  return err instanceof Error ? err.name : null;
}

function abortError(signal: AbortSignal): Error {
  const err = new Error(`aborted: ${String(signal.reason)}`);
  err.name = 'AbortError';
  return err;
}

function childLogger(logger: Logger, fields: Record<string, unknown>, redact: Redactor): Logger {
  return {
    info: (msg, more) => logger.info(redact.text(msg), redact.deep({ ...fields, ...more })),
    warn: (msg, more) => logger.warn(redact.text(msg), redact.deep({ ...fields, ...more })),
    error: (msg, more) => logger.error(redact.text(msg), redact.deep({ ...fields, ...more })),
  };
}
