import { defaultRequestsForLevel, type ServingLevel, type ServingLevelSpec, type ServingRequestRecord, type ServingSlo } from '../../shared';
import type { LlmBackend } from '../llm/backend-port';
import { STREAM_LIMITS } from '../llm/stream-limits';
import { arrivalOffsets, requestsForDuration } from './arrivals';
import type { PromptSource } from './dataset';
import { requestBody, workerRoute, type BodyOptions } from './request-body';
import { requestRecord, toOutcome, type RequestOutcome } from './request';
import { summarizeLevel } from './summary';
import type { WorkerLevelPlan, WorkerLimits } from './worker/protocol';
import { startGenerator } from './worker/runner';

/**
 * The serving load generator (design §13, §13b): the levels one after another against one
 * server, run by a worker thread (worker/) so this thread's work (the engine, the API, zod) cannot
 * delay a measured chunk. Each level's figures go to `onLevel` as soon as it ends, each measured
 * request to `onRecord`. Cancelling `signal` stops the worker (every request in flight) and rejects.
 */

export type ServingPlan = {
  levels: readonly ServingLevelSpec[];
  /** Measured requests per level; null: `durationS`, or each level's default (several waves of its concurrency). */
  requestsPerLevel: number | null;
  durationS: number | null;
  warmupRequests: number;
  /** The rented machine's $/h (prices each level per million tokens); null on an existing backend. */
  dphTotal: number | null;
  slo: ServingSlo | null;
  /** Seeds the arrival schedule of rate levels. */
  seed: number;
  requestTimeoutMs: number;
  levelTimeoutMs: number;
  /** A level stops when this many requests in a row, from its start, fail (default 8). */
  failFast?: number;
};

export type ServingWorkload = { source: PromptSource; body: BodyOptions };

export type ServingHooks = {
  onLevelStart?: (spec: ServingLevelSpec, index: number, requests: number | null) => void | Promise<void>;
  onLevel?: (level: ServingLevel, index: number) => void | Promise<void>;
  onRecord?: (record: ServingRequestRecord) => void;
};

export const DEFAULT_FAIL_FAST = 8;

export const SERVING_WORKER_LIMITS: WorkerLimits = {
  lineBytes: STREAM_LIMITS.servingLineBytes,
  responseBytes: STREAM_LIMITS.responseBytes,
  textChunksPerToken: 2,
  errorBodyBytes: STREAM_LIMITS.errorBodyBytes,
};

/** The worker's plan of one level. */
export function workerPlan(spec: ServingLevelSpec, index: number, plan: ServingPlan): WorkerLevelPlan {
  const durationMs = plan.durationS !== null ? plan.durationS * 1000 : null;
  const common = {
    level: index + 1,
    warmup: plan.warmupRequests,
    requestTimeoutMs: plan.requestTimeoutMs,
    levelTimeoutMs: plan.levelTimeoutMs,
  };
  if (spec.kind === 'concurrency') {
    const count = plan.requestsPerLevel ?? (durationMs !== null ? null : defaultRequestsForLevel(spec));
    return { ...common, count, durationMs, concurrency: spec.concurrency, offsetsMs: null, failFast: Math.min(plan.failFast ?? DEFAULT_FAIL_FAST, (count ?? Infinity) + plan.warmupRequests) };
  }
  const count = plan.requestsPerLevel ?? (plan.durationS !== null && spec.rate !== 'inf' ? requestsForDuration(spec.rate, plan.durationS) : defaultRequestsForLevel(spec));
  return {
    ...common,
    count,
    durationMs: null,
    concurrency: spec.maxConcurrency ?? 0,
    offsetsMs: arrivalOffsets(count, spec.rate, spec.burstiness, plan.seed + index),
    failFast: Math.min(plan.failFast ?? DEFAULT_FAIL_FAST, count + plan.warmupRequests),
  };
}

export async function runServingLoad(backend: LlmBackend, workload: ServingWorkload, plan: ServingPlan, signal: AbortSignal, hooks: ServingHooks = {}): Promise<ServingLevel[]> {
  const wire = backend.wire();
  const route = workerRoute(backend.api, workload.body.endpoint);
  let next = 0;
  const generator = startGenerator({ origin: wire.origin, path: `${wire.prefix}${route.path}`, headers: wire.headers, stream: route.stream }, SERVING_WORKER_LIMITS, (count) =>
    Array.from({ length: count }, () => {
      // Numbered across levels: no two requests of a run share a prompt (random dataset).
      const item = workload.source.at(next++);
      return { body: requestBody(workload.body, item), askedTokens: item.outputTokens, promptTokens: item.promptTokens };
    }),
  );
  const levels: ServingLevel[] = [];
  try {
    for (const [index, spec] of plan.levels.entries()) {
      const worker = workerPlan(spec, index, plan);
      await hooks.onLevelStart?.(spec, index, worker.count);
      const outcomes: RequestOutcome[] = [];
      const done = await generator.runLevel(
        worker,
        (record) => {
          const outcome = toOutcome(record);
          outcomes.push(outcome);
          hooks.onRecord?.(requestRecord(worker.level, outcome, record.itlMs.length));
        },
        signal,
      );
      const level = summarizeLevel({ spec, outcomes, durationMs: done.durationMs, started: done.started, firstStartMs: done.firstStartMs, lastStartMs: done.lastStartMs, stopped: done.stopped }, plan.dphTotal, plan.slo);
      levels.push(level);
      await hooks.onLevel?.(level, index);
      // A level that measured nothing and stopped (its first requests all failed, its deadline) says the server is not serving: the next levels would only wait the same way.
      if (level.requests === 0 && level.stopped !== null) break;
    }
  } finally {
    await generator.close();
  }
  return levels;
}
