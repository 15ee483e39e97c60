import { randomUUID } from 'node:crypto';
import {
  isTerminal,
  type EventLabels,
  type JobEvent,
  type JobKind,
  type JobRecord,
  type JobRequestByKind,
  type JobResources,
  type JobStatus,
} from '../../shared';
import type { IdempotencyRecord, JobPatch, JobStore } from '../store/types';
import { EventBus } from './event-bus';
import { redactSecrets } from './redact';
import { JobFailure, type AnyJobHandler, type EmitInput, type JobContext, type JobHandler, type Logger, type RecoveryContext } from './types';

export type EngineOptions = {
  store: JobStore;
  handlers: readonly AnyJobHandler[];
  /** Running jobs at once (design §4 default 4); the rest wait `queued`, FIFO. */
  concurrency?: number;
  logger: Logger;
  now?: () => Date;
  bus?: EventBus;
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
  private readonly concurrency: number;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly queue: string[] = [];
  private readonly running = new Map<string, Running>();
  private readonly tenants = new Map<string, string>();
  private accepting = true;

  constructor(options: EngineOptions) {
    this.store = options.store;
    for (const handler of options.handlers) this.handlers.set(handler.kind, handler);
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.logger = options.logger;
    this.now = options.now ?? (() => new Date());
    this.bus = options.bus ?? new EventBus();
  }

  handlerFor<K extends JobKind>(kind: K): JobHandler<K> | undefined {
    return this.handlers.get(kind) as JobHandler<K> | undefined;
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
    const record: JobRecord = {
      job_id: randomUUID(),
      tenant_id: tenantId,
      kind,
      status: 'queued',
      message: 'accepted',
      created_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
      request: redactSecrets(request) as Record<string, unknown>,
      progress: null,
      result: null,
      error: null,
      error_code: null,
      resources: null,
    };
    await this.store.createJob(record, idempotency ? { ...idempotency, job_id: record.job_id, created_at: at } : undefined);
    this.tenants.set(record.job_id, tenantId);
    await this.emit(record.job_id, { event: 'job.queued', status: 'info', message: 'accepted', labels: { kind } });
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
      await this.finish(jobId, 'cancelled', { message: 'cancelled before it started' });
      return 'cancelled';
    }
    const running = this.running.get(jobId);
    if (running) {
      // Flag first (synchronously): two concurrent cancels must not both record and abort.
      if (!running.controller.signal.aborted && !running.cancelRequested) {
        running.cancelRequested = true;
        await this.emit(jobId, { event: 'job.cancel_requested', status: 'info', message: 'cancellation requested' });
        running.controller.abort('cancelled');
      }
      return 'running';
    }
    // Queued in the store but not in our queue (submitted by a process we recovered from): cancel.
    if (job.status === 'queued') {
      await this.finish(jobId, 'cancelled', { message: 'cancelled before it started' });
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
    const started = await this.transition(jobId, 'running', { message: 'running', started_at: this.now().toISOString() });
    await this.emit(jobId, { event: 'job.running', status: 'info', message: 'running' });
    const t0 = performance.now();
    try {
      const ctx = this.jobContext(started, controller.signal);
      const result = await (handler as JobHandler).run(ctx as JobContext);
      if (controller.signal.aborted) throw abortError(controller.signal);
      await this.finish(jobId, 'succeeded', { message: 'succeeded', result }, performance.now() - t0);
    } catch (err) {
      const elapsed = performance.now() - t0;
      if (controller.signal.aborted && controller.signal.reason === 'cancelled') {
        await this.finish(jobId, 'cancelled', { message: 'cancelled' }, elapsed);
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

  private jobContext(job: JobRecord, signal: AbortSignal): JobContext {
    const jobId = job.job_id;
    const logger = childLogger(this.logger, { job_id: jobId, kind: job.kind });
    return {
      job,
      request: job.request as unknown as JobRequestByKind[JobKind],
      signal,
      logger,
      step: async <T>(event: string, fn: () => Promise<T>, labels?: EventLabels): Promise<T> => {
        await this.emit(jobId, { event, status: 'started', ...(labels ? { labels } : {}) });
        const t0 = performance.now();
        try {
          const value = await fn();
          await this.emit(jobId, { event, status: 'ok', duration_ms: round3(performance.now() - t0), ...(labels ? { labels } : {}) });
          return value;
        } catch (err) {
          await this.emit(jobId, {
            event,
            status: 'error',
            duration_ms: round3(performance.now() - t0),
            message: errorMessage(err),
            error_type: errorType(err),
            ...(labels ? { labels } : {}),
          });
          throw err;
        }
      },
      info: async (event, message, labels) => {
        await this.emit(jobId, { event, status: 'info', message, ...(labels ? { labels } : {}) });
      },
      emit: async (input) => {
        await this.emit(jobId, input);
      },
      setProgress: async (phase, detail = null, percent = null) => {
        await this.store.updateJob(jobId, { progress: { phase, detail, percent } });
      },
      setResources: (patch) => this.mergeResources(jobId, patch),
    };
  }

  private recoveryContext(job: JobRecord): RecoveryContext {
    return {
      logger: childLogger(this.logger, { job_id: job.job_id, kind: job.kind }),
      emit: async (input) => {
        await this.emit(job.job_id, input);
      },
      setResources: (patch) => this.mergeResources(job.job_id, patch),
    };
  }

  private async mergeResources(jobId: string, patch: JobResources): Promise<void> {
    const current = await this.store.getJob(jobId);
    await this.store.updateJob(jobId, { resources: { ...(current?.resources ?? {}), ...patch } });
  }

  private async transition(jobId: string, status: JobStatus, patch: Omit<JobPatch, 'status'>): Promise<JobRecord> {
    return this.store.updateJob(jobId, { ...patch, status });
  }

  private async finish(
    jobId: string,
    status: 'succeeded' | 'failed' | 'cancelled',
    patch: Omit<JobPatch, 'status' | 'finished_at'>,
    durationMs?: number,
    errorTypeName?: string,
  ): Promise<void> {
    await this.transition(jobId, status, { ...patch, finished_at: this.now().toISOString() });
    await this.emit(jobId, {
      event: `job.${status}`,
      status: status === 'succeeded' ? 'ok' : status === 'failed' ? 'error' : 'info',
      message: patch.message ?? status,
      duration_ms: durationMs === undefined ? null : round3(durationMs),
      error_type: errorTypeName ?? null,
      labels: patch.error_code ? { error_code: patch.error_code } : {},
    });
    this.tenants.delete(jobId);
  }

  async emit(jobId: string, input: EmitInput): Promise<JobEvent> {
    const event = await this.store.appendEvent({
      job_id: jobId,
      event: input.event,
      status: input.status,
      message: input.message ?? null,
      duration_ms: input.duration_ms ?? null,
      error_type: input.error_type ?? null,
      labels: input.labels ?? {},
      recorded_at: this.now().toISOString(),
    });
    const tenantId = this.tenants.get(jobId) ?? (await this.store.getJob(jobId))?.tenant_id;
    if (tenantId) this.bus.publish(tenantId, event);
    return event;
  }
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
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

function childLogger(logger: Logger, fields: Record<string, unknown>): Logger {
  return {
    info: (msg, more) => logger.info(msg, { ...fields, ...more }),
    warn: (msg, more) => logger.warn(msg, { ...fields, ...more }),
    error: (msg, more) => logger.error(msg, { ...fields, ...more }),
  };
}
