import type { EventInput } from '../events/timed';
import type {
  EventLabels,
  JobKind,
  JobRecord,
  JobRequestByKind,
  JobResources,
  JobResultByKind,
  ValidationIssue,
} from '../../shared';

export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** What a workflow emits: the one event-input shape of ./timed.ts. */
export type EmitInput = EventInput;

/** What a workflow sees while it runs. Every method persists before it resolves. */
export interface JobContext<K extends JobKind = JobKind> {
  readonly job: JobRecord;
  readonly request: JobRequestByKind[K];
  /** Aborted on cancel (reason 'cancelled') or shutdown (reason 'shutdown'). */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** A timed step: `started`, then `ok` or `error` with duration_ms. Rethrows the step's error. */
  step<T>(event: string, fn: () => Promise<T>, labels?: EventLabels): Promise<T>;
  info(event: string, message: string, labels?: EventLabels): Promise<void>;
  emit(input: EmitInput): Promise<void>;
  setProgress(phase: string, detail?: string | null, percent?: number | null): Promise<void>;
  /** The running cost of a rented machine, kept in `progress` across phase changes. */
  setCost(cost: { cost_usd: number; dph_total: number }): Promise<void>;
  /** Stops the job from inside (a spend limit reached): aborts `signal`, and the job fails with this failure once the workflow returns. */
  stop(failure: JobFailure): void;
  /** Records what the job holds (a rented instance…) so recovery after a crash can release it. */
  setResources(patch: JobResources): Promise<void>;
}

export type RecoveryContext = {
  readonly logger: Logger;
  emit(input: EmitInput): Promise<void>;
  setResources(patch: JobResources): Promise<void>;
};

export interface JobHandler<K extends JobKind = JobKind> {
  readonly kind: K;
  /** Submit-time checks beyond the schema (agent exists, kubeconfig readable…): issues → 422. */
  validate?(request: JobRequestByKind[K]): Promise<ValidationIssue[]>;
  /** Runs the workflow; what it returns is the job's `result` (typed per kind). Must honour ctx.signal. */
  run(ctx: JobContext<K>): Promise<JobResultByKind[K]>;
  /** After a crash, for a job that was `running`: release what ctx.job.resources says it held. */
  recover?(job: JobRecord, ctx: RecoveryContext): Promise<void>;
}

export type AnyJobHandler = { [K in JobKind]: JobHandler<K> }[JobKind];

/** A failure with a stable `error_code` for the job record. */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'JobFailure';
  }
}
