import {
  APP_TENANT_ID,
  CostEstimationRequestSchema,
  JOB_REQUEST_SCHEMAS,
  JobListQuerySchema,
  LlmModelsQuerySchema,
  MetricsSummaryQuerySchema,
  isTerminal,
  type CatalogEntry,
  type CostEstimationRequest,
  type CostEstimationResponse,
  type Health,
  type JobEvent,
  type JobKind,
  type JobRecord,
  type JobRequestByKind,
  type LlmModelsQuery,
  type LlmModelsResponse,
} from '../../shared';
import type { JobEngine } from '../engine/engine';
import { summarizeEvents } from '../engine/metrics';
import { InvalidCursorError, type JobStore } from '../store/types';
import { withNormalisedBackendUrls } from './backend-urls';
import { emptyRequestLog, readRequestLog, requestLogPath } from '../serving/request-log';
import { createJobSubmitter } from './job-submission';
import { ProblemError } from './problem-error';
import type { BenchdeskService } from './service-types';

export { IDEMPOTENCY_RETENTION_MS, canonicalJson, normalizeIdempotencyKey } from './job-submission';

export type ServiceDeps = {
  engine: JobEngine;
  store: JobStore;
  version: string;
  authMode: Health['auth'];
  /** /healthz's token_sources (while auth is enabled). */
  tokenSources?: () => NonNullable<Health['token_sources']>;
  estimate(request: CostEstimationRequest): Promise<CostEstimationResponse>;
  catalog(): CatalogEntry[];
  listLlmModels(query: LlmModelsQuery): Promise<LlmModelsResponse>;
  /**
   * The saved default backend as shown (`http://user:***@host`) → the sealed URL with its password.
   * Only for the app's own tenant: the default backend is the app's setting.
   */
  resolveDefaultBackendUrl?: (url: string) => string;
  now?: () => number;
};

function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) throw new ProblemError(400, 'bad_request', 'request body must be a JSON object');
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ProblemError(400, 'bad_request', `request body must be a JSON object, not ${Array.isArray(body) ? 'an array' : typeof body}`);
  }
  return body as Record<string, unknown>;
}

export function createService(deps: ServiceDeps): BenchdeskService {
  const { engine, store } = deps;
  const now = deps.now ?? Date.now;
  const submitJob = createJobSubmitter({ engine, store, now });

  async function jobOf(tenantId: string, jobId: string): Promise<JobRecord> {
    const job = await store.getJob(jobId);
    // Another tenant's job is indistinguishable from a missing one.
    if (!job || job.tenant_id !== tenantId) throw new ProblemError(404, 'job_not_found', `job not found: ${jobId}`);
    return job;
  }

  /** A request of the app's tenant naming the saved default backend gets its sealed credentials. */
  function withDefaultBackend(tenantId: string, value: unknown): unknown {
    const resolve = deps.resolveDefaultBackendUrl;
    if (!resolve || tenantId !== APP_TENANT_ID || !value || typeof value !== 'object' || Array.isArray(value)) return value;
    const url = (value as { backend_url?: unknown }).backend_url;
    if (typeof url !== 'string') return value;
    const resolved = resolve(url);
    return resolved === url ? value : { ...value, backend_url: resolved };
  }

  function validateJobRequest<K extends JobKind>(kind: K, body: unknown): JobRequestByKind[K] {
    const parsed = JOB_REQUEST_SCHEMAS[kind].safeParse(requireObjectBody(body));
    if (!parsed.success) throw ProblemError.validation(parsed.error.issues, `${kind} request`);
    return withNormalisedBackendUrls(parsed.data as JobRequestByKind[K]);
  }

  return {
    health: () => {
      // A full data dir does not stop the API (reads still work), so health stays 200 and says why it is degraded.
      const storage = store.storageHealth();
      const sources = deps.authMode === 'enabled' ? deps.tokenSources?.() : undefined;
      const auth = { auth: deps.authMode, ...(sources && sources.length > 0 ? { token_sources: sources } : {}) };
      return storage.status === 'ok' ? { status: 'ok', version: deps.version, ...auth } : { status: 'degraded', reason: storage.reason, version: deps.version, ...auth };
    },

    async estimate(body) {
      const parsed = CostEstimationRequestSchema.safeParse(requireObjectBody(body));
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'estimate request');
      return deps.estimate(parsed.data);
    },

    async createJob(tenantId, kind, body, rawKey) {
      const request = validateJobRequest(kind, withDefaultBackend(tenantId, body));
      const issues = (await engine.handlerFor(kind)?.validate?.(request)) ?? [];
      if (issues.length > 0) throw ProblemError.validation(issues, `${kind} request`);

      return submitJob(tenantId, kind, request, rawKey);
    },

    async listJobs(tenantId, query) {
      const parsed = JobListQuerySchema.safeParse(query ?? {});
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'query');
      try {
        return await store.listJobs({ tenant_id: tenantId, ...parsed.data });
      } catch (err) {
        if (err instanceof InvalidCursorError) {
          throw new ProblemError(422, 'validation_failed', 'invalid cursor', [{ path: 'cursor', message: 'not a cursor from this server' }]);
        }
        throw err;
      }
    },

    getJob: (tenantId, jobId) => jobOf(tenantId, jobId),
    async getJobRequests(tenantId, jobId, format) {
      const job = await jobOf(tenantId, jobId);
      if (job.kind !== 'serving-benchmark') throw new ProblemError(404, 'not_found', `job ${jobId} is a ${job.kind} job: only serving-benchmark jobs have per-request records`);
      // A job that has not measured anything yet answers an empty list (a CSV with its header).
      return (await readRequestLog(requestLogPath(store.dataDir, jobId), format)) ?? emptyRequestLog(format);
    },

    async cancelJob(tenantId, jobId) {
      const job = await jobOf(tenantId, jobId);
      if (isTerminal(job.status)) {
        throw new ProblemError(409, 'job_not_cancellable', `job ${jobId} has already ${job.status === 'cancelled' ? 'been cancelled' : job.status}`);
      }
      const status = (await engine.cancel(jobId)) ?? job.status;
      return { job_id: jobId, status };
    },

    async getJobEvents(tenantId, jobId, after) {
      await jobOf(tenantId, jobId);
      return { job_id: jobId, events: await store.listEvents(jobId, after) };
    },

    subscribe(tenantId, jobId, listener) {
      // Callers check the job belongs to the tenant first (jobOf); the tenant channel can never
      // carry another tenant's events.
      if (jobId !== null) return engine.bus.subscribeJob(jobId, listener);
      return engine.bus.subscribeTenant(tenantId, (event: JobEvent) => listener(event));
    },

    replayFeed: (tenantId, after) => engine.bus.replay(tenantId, after),

    lastSeq: () => store.lastSeq,

    listCatalog: () => ({ models: deps.catalog() }),

    async listLlmModels(tenantId, query) {
      const parsed = LlmModelsQuerySchema.safeParse(withDefaultBackend(tenantId, query ?? {}));
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'query');
      return deps.listLlmModels(parsed.data);
    },

    async metricsSummary(tenantId, query) {
      const parsed = MetricsSummaryQuerySchema.safeParse(query ?? {});
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'query');
      if (parsed.data.job_id) {
        const job = await store.getJob(parsed.data.job_id);
        // Like GET /v1/jobs/{id}: another tenant's job is indistinguishable from a missing one.
        if (!job || job.tenant_id !== tenantId) throw new ProblemError(404, 'job_not_found', `job not found: ${parsed.data.job_id}`);
      }
      return { events: await summarizeEvents(store.scanEvents(tenantId, parsed.data.job_id)) };
    },
  };
}
