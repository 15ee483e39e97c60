import { JOB_KINDS, isTerminal, type JobKind, type JobRecord } from '../../shared';
import { ProblemError } from '../app/problem-error';
import type { BenchdeskService } from '../app/service-types';
import type { EventBus } from '../engine/event-bus';
import type { SweepJobEnd, SweepJobKind, SweepJobRunner } from './ports';

/**
 * The sweep's jobs through the engine's normal submission (the service's createJob: the kind's
 * schema, its submit-time checks, durable before it answers), waited for on the event bus (no
 * polling), their results read from the store.
 */

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

function asJobKind(kind: SweepJobKind): JobKind | null {
  return (JOB_KINDS as readonly string[]).includes(kind) ? (kind as JobKind) : null;
}

function endOf(job: JobRecord): SweepJobEnd {
  return { status: job.status as SweepJobEnd['status'], result: job.result, error: job.error, error_code: job.error_code };
}

export function createEngineJobRunner(deps: {
  service: BenchdeskService;
  bus: EventBus;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  hasHandler(kind: JobKind): boolean;
  /** The job an idempotency key names (the store's idempotency records). */
  jobOfKey(tenantId: string, kind: JobKind, key: string): Promise<string | undefined>;
}): SweepJobRunner {
  return {
    supports(kind) {
      const known = asJobKind(kind);
      return known !== null && deps.hasHandler(known);
    },

    async submit(tenantId, kind, request, tag) {
      const known = asJobKind(kind);
      if (!known) throw new Error(`this server has no ${kind} job kind`);
      try {
        const { accepted } = await deps.service.createJob(tenantId, known, request, tag);
        return accepted.job_id;
      } catch (err) {
        // A refused request is the cell's failure, in the request's own words.
        if (err instanceof ProblemError) throw new Error(`the ${kind} job was refused: ${err.message}`, { cause: err });
        throw err;
      }
    },

    wait(jobId, signal) {
      return new Promise<SweepJobEnd>((resolve, reject) => {
        let settled = false;
        const finish = (fn: () => void) => {
          if (settled) return;
          settled = true;
          unsubscribe();
          signal.removeEventListener('abort', onAbort);
          fn();
        };
        const check = () => {
          deps
            .getJob(jobId)
            .then((job) => {
              if (!job) finish(() => reject(new Error(`job ${jobId} is gone`)));
              else if (isTerminal(job.status)) finish(() => resolve(endOf(job)));
            })
            .catch((err: unknown) => finish(() => reject(err instanceof Error ? err : new Error(String(err)))));
        };
        // Subscribed before the first read: an end between the two is not missed.
        const unsubscribe = deps.bus.subscribeJob(jobId, (event) => {
          if (TERMINAL_EVENTS.has(event.event)) check();
        });
        const onAbort = () => finish(() => reject(new Error(`stopped waiting for job ${jobId}`)));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        check();
      });
    },

    async findTagged(tenantId, kind, tag) {
      const known = asJobKind(kind);
      return known ? deps.jobOfKey(tenantId, known, tag) : undefined;
    },

    async cancel(tenantId, jobId) {
      await deps.service.cancelJob(tenantId, jobId).catch((err: unknown) => {
        // Ended already: nothing to stop.
        if (err instanceof ProblemError && err.status === 409) return;
        throw err;
      });
    },
  };
}
