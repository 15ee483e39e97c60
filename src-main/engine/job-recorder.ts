import type { EventLabels, JobEvent, JobKind, JobProgress, JobRecord, JobRequestByKind, JobResources, JobStatus } from '../../shared';
import { roundMs, timed } from '../events/timed';
import { InsufficientStorageError, type JobPatch, type JobStore } from '../store/types';
import type { EventBus } from './event-bus';
import { Redactor, type JobSecrets } from './redact';
import type { EmitInput, JobContext, Logger, RecoveryContext } from './types';

/**
 * Everything the engine writes about a job: its events (published on the bus, secrets masked),
 * its progress and resources, and its end, which a full disk may delay but never lose. The
 * engine's queue and state machine (engine.ts) decide when; this decides how.
 */

const URLS_ONLY = new Redactor();

export type RecorderOptions = {
  store: JobStore;
  bus: EventBus;
  logger: Logger;
  now: () => Date;
  secrets: JobSecrets;
  /** Whether the engine still takes work (a full disk's retries stop once it does not). */
  accepting: () => boolean;
};

export class JobRecorder {
  /** Each job's tenant, for publishing its events. */
  readonly tenants = new Map<string, string>();
  /** Per running job: its request's secrets, masked in everything the job records (see Redactor). */
  readonly redactors = new Map<string, Redactor>();
  /**
   * What a job holds (or no longer holds) that a full disk kept from its record: written with the
   * next write of the job that goes through, at the latest with its end, which is retried until
   * space returns. So a machine the marketplace confirmed destroyed is never left `released: false`.
   */
  readonly #unrecordedResources = new Map<string, JobResources>();

  constructor(private readonly o: RecorderOptions) {}

  private get logger(): Logger {
    return this.o.logger;
  }

  /** What a workflow sees while it runs: every write goes through here, with the job's secrets masked. */
  jobContext(job: JobRecord, controller: AbortController, request: Record<string, unknown>): JobContext {
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
        await this.bestEffort(jobId, 'progress', () => this.o.store.updateJob(jobId, { progress }));
      },
      setCost: async (cost) => {
        progress = { ...progress, cost_usd: cost.cost_usd, dph_total: cost.dph_total };
        await this.bestEffort(jobId, 'progress', () => this.o.store.updateJob(jobId, { progress }));
      },
      stop: (failure) => {
        if (!signal.aborted) controller.abort(failure);
      },
      // A workflow that cannot record what it holds keeps running (and releases it in its cleanup).
      setResources: (patch) => this.recordResources(jobId, patch),
    };
  }

  recoveryContext(job: JobRecord): RecoveryContext {
    return {
      logger: childLogger(this.logger, { job_id: job.job_id, kind: job.kind }, URLS_ONLY),
      emit: async (input) => {
        await this.emit(job.job_id, input);
      },
      setResources: (patch) => this.recordResources(job.job_id, patch),
    };
  }

  /** Merges into the job's resources; on a full disk keeps the patch for the job's next write (see unrecordedResources). */
  async recordResources(jobId: string, patch: JobResources): Promise<void> {
    const pending: JobResources = { ...this.#unrecordedResources.get(jobId), ...patch };
    this.#unrecordedResources.set(jobId, pending);
    try {
      await this.#mergeResources(jobId, pending);
      if (this.#unrecordedResources.get(jobId) === pending) this.#unrecordedResources.delete(jobId);
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      this.logger.warn('resources not recorded yet (disk full): they are written with the end of the job', { job_id: jobId, resources: pending, error: err.message });
    }
  }

  async #mergeResources(jobId: string, patch: JobResources): Promise<void> {
    const current = await this.o.store.getJob(jobId);
    await this.o.store.updateJob(jobId, { resources: { ...(current?.resources ?? {}), ...patch } });
  }

  async transition(jobId: string, status: JobStatus, patch: Omit<JobPatch, 'status'>): Promise<JobRecord> {
    return this.o.store.updateJob(jobId, { ...patch, status });
  }

  redactorOf(jobId: string): Redactor {
    return this.redactors.get(jobId) ?? URLS_ONLY;
  }

  async finish(
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
    await this.#persistEnd(jobId, status, patch, retryOnFullDisk);
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
    await this.o.secrets.discard(jobId).catch((err: unknown) => this.logger.warn('could not delete the job credentials file', { job_id: jobId, error: errorMessage(err) }));
  }

  /**
   * The end of a job must reach the store, or it would show `running` until a restart: while the
   * disk is full the write is retried (0.5 s, 1 s … 5 s apart) until it goes through or the engine
   * shuts down (then start-up recovery ends the job as interrupted).
   */
  async #persistEnd(jobId: string, status: JobStatus, patch: Omit<JobPatch, 'status' | 'finished_at'>, retry: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const held = this.#unrecordedResources.get(jobId);
        const resources = held ? { ...(await this.o.store.getJob(jobId))?.resources, ...held } : undefined;
        await this.transition(jobId, status, { ...patch, ...(resources ? { resources } : {}), finished_at: this.o.now().toISOString() });
        if (held && this.#unrecordedResources.get(jobId) === held) this.#unrecordedResources.delete(jobId);
        return;
      } catch (err) {
        if (!retry || !(err instanceof InsufficientStorageError) || !this.o.accepting()) throw err;
        if (attempt === 0) this.logger.warn('cannot record the end of a job (disk full): retrying until space is freed', { job_id: jobId, status, error: err.message });
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5_000)));
      }
    }
  }

  /**
   * An event while a job runs. A full disk must not break the workflow (its cleanup, e.g. releasing
   * a rented machine, still has to run), so the event is dropped with a warn line instead.
   */
  async record(jobId: string, input: EmitInput): Promise<void> {
    await this.bestEffort(jobId, input.event, () => this.emit(jobId, input));
  }

  async bestEffort(jobId: string, what: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!(err instanceof InsufficientStorageError)) throw err;
      this.logger.warn('not recorded (disk full)', { job_id: jobId, what, error: err.message });
    }
  }

  async emit(jobId: string, input: EmitInput): Promise<JobEvent> {
    const event = await this.o.store.appendEvent({
      job_id: jobId,
      event: input.event,
      status: input.status,
      // Events are served and stored: a URL with a password, or a secret of the job, is masked.
      message: input.message == null ? null : this.redactorOf(jobId).text(input.message),
      duration_ms: input.duration_ms ?? null,
      error_type: input.error_type ?? null,
      labels: this.redactorOf(jobId).deep(input.labels ?? {}),
      recorded_at: this.o.now().toISOString(),
    });
    const tenantId = this.tenants.get(jobId) ?? (await this.o.store.getJob(jobId))?.tenant_id;
    if (tenantId) this.o.bus.publish(tenantId, event);
    return event;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

/** Provider errors carry a stable snake_case `code` (llmserver_unreachable, instance_failed…). */
export function errorCode(err: unknown): string {
  const code = err !== null && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z][a-z0-9_]{1,63}$/.test(code) ? code : 'internal';
}

export function errorType(err: unknown): string | null {
  return err instanceof Error ? err.name : null;
}

export function abortError(signal: AbortSignal): Error {
  const err = new Error(`aborted: ${String(signal.reason)}`);
  err.name = 'AbortError';
  return err;
}

export function childLogger(logger: Logger, fields: Record<string, unknown>, redact: Redactor): Logger {
  return {
    info: (msg, more) => logger.info(redact.text(msg), redact.deep({ ...fields, ...more })),
    warn: (msg, more) => logger.warn(redact.text(msg), redact.deep({ ...fields, ...more })),
    error: (msg, more) => logger.error(redact.text(msg), redact.deep({ ...fields, ...more })),
  };
}
