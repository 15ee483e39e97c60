import type {
  InstanceClassification,
  JobRecord,
  MarketplaceHealth,
  MarketplaceInstanceEntry,
  MarketplaceInstanceList,
  ReleaseInstanceResponse,
} from '../../shared';
import type { EmitInput, Logger } from '../engine/types';
import { costBetween } from '../engine/workflows/cost-meter';
import { isMarketplaceError } from '../marketplace/errors';
import { errorMessage, type MarketplaceEvent } from '../marketplace/events';
import { isGone } from '../marketplace/instance-status';
import { LABEL_PREFIX, releaseInstance, type ReleaseResult } from '../marketplace/provisioning';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import type { JobEngine } from '../engine/engine';
import type { JobStore } from '../store/types';
import { ProblemError } from './problem-error';
import type { SettingsStore } from './settings';

/**
 * Rented machines as a resource: the list behind GET /v1/marketplace/instances, the release
 * behind POST /v1/marketplace/instances/{id}/release, and the orphan sweep (at start-up and every
 * few minutes) whose count /healthz shows. Only instances labelled `benchdesk:<job id>` are ever
 * listed or touched: anything else on the account is someone else's.
 */

export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;
/** Bound on one marketplace listing (the list and the sweep). */
const LIST_TIMEOUT_MS = 30_000;
/** Bound on one destroy-and-verify. */
const RELEASE_TIMEOUT_MS = 120_000;

export type InstanceServiceDeps = {
  /** null when no marketplace key is configured. */
  marketplace(): VastApi | null;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  /** Records that the job's own instance is gone (resources.marketplace_instance_released). */
  markReleased(jobId: string): Promise<void>;
  /** Appends an event to a job (any status). */
  emit(jobId: string, input: EmitInput): Promise<unknown>;
  /** Read at every sweep, so changing the setting needs no restart. */
  releaseOrphansAutomatically(): boolean;
  /** The max_cost_usd_default setting (null: off): the limit of a kept machine whose request set none. */
  maxCostDefault(): number | null;
  log: Logger;
  now?: () => number;
  sweepIntervalMs?: number;
  releaseRetryDelayMs?: number;
};

export type SweepResult = { orphaned: number[]; released: number[]; failed: number[] };

export type InstanceService = {
  list(tenantId: string, query: { orphaned?: boolean | undefined }): Promise<MarketplaceInstanceList>;
  release(tenantId: string, instanceId: number): Promise<ReleaseInstanceResponse>;
  /** One sweep now (concurrent calls share the one in flight). */
  sweep(): Promise<SweepResult>;
  /** Sweeps now and then every interval, until stop(). */
  start(): void;
  stop(): Promise<void>;
  /** The last sweep's figures; null before the first sweep or without a key. */
  health(): MarketplaceHealth | null;
};

type Row = { instance: MarketplaceInstance; jobId: string; job: JobRecord | undefined; entry: MarketplaceInstanceEntry };

/** Why a machine is still up, from its job (design: active / kept / orphaned). */
export function classifyInstance(job: JobRecord | undefined): InstanceClassification {
  if (!job) return 'orphaned';
  if (job.status === 'queued' || job.status === 'running') return 'active';
  if (job.kind === 'llm-instance' && job.status === 'succeeded') return 'kept';
  // Kept on request, unless the spend limit stopped the job (its machine was due back then).
  if (job.kind === 'benchmark' && job.request.marketplace_stop_instance === false && job.error_code !== 'budget_exceeded') return 'kept';
  return 'orphaned';
}

/** The job id in a `benchdesk:<job id>` label, or null for anything that is not ours. */
export function jobIdOfLabel(label: string | null | undefined): string | null {
  if (!label?.startsWith(LABEL_PREFIX)) return null;
  const id = label.slice(LABEL_PREFIX.length);
  return id.length > 0 && id.length <= 128 ? id : null;
}

function requestLimit(job: JobRecord): number | null {
  const value = (job.request as { max_cost_usd?: unknown }).max_cost_usd;
  return typeof value === 'number' ? value : null;
}

export function createInstanceService(deps: InstanceServiceDeps): InstanceService {
  const now = deps.now ?? Date.now;
  let health: MarketplaceHealth | null = null;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<SweepResult> | null = null;
  /** Orphans already logged and recorded on their job: one `marketplace.orphan` event each, not one per sweep. */
  const reported = new Set<number>();

  async function rows(client: VastApi): Promise<Row[]> {
    const all = await client.listInstances({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
    const out: Row[] = [];
    for (const instance of all) {
      const jobId = jobIdOfLabel(instance.label);
      if (!jobId || isGone(instance)) continue;
      const job = await deps.getJob(jobId);
      out.push({ instance, jobId, job, entry: toEntry(instance, job) });
    }
    return out;
  }

  function toEntry(instance: MarketplaceInstance, job: JobRecord | undefined): MarketplaceInstanceEntry {
    const startMs = instance.start_date != null ? instance.start_date * 1000 : job?.resources?.rented_at ? Date.parse(job.resources.rented_at) : null;
    const dph = instance.dph_total ?? job?.resources?.dph_total ?? null;
    return {
      instance_id: instance.id,
      label: instance.label ?? '',
      job: job ? { job_id: job.job_id, kind: job.kind, status: job.status } : null,
      gpu_name: instance.gpu_name ?? null,
      num_gpus: instance.num_gpus ?? null,
      dph_total: dph,
      rented_at: startMs !== null && Number.isFinite(startMs) ? new Date(startMs).toISOString() : null,
      cost_usd_so_far: startMs !== null && dph !== null && Number.isFinite(startMs) ? costBetween(dph, startMs, now()) : null,
      state: instance.actual_status ?? null,
      classification: classifyInstance(job),
    };
  }

  async function listOrProblem(client: VastApi): Promise<Row[]> {
    try {
      return await rows(client);
    } catch (err) {
      if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', `could not list the marketplace instances: ${err.message}`);
      throw err;
    }
  }

  /** The release's events on the job, written in order; `flush` waits for them (the caller reads them next). */
  function jobEmitter(jobId: string | null): { sink?: (e: MarketplaceEvent) => void; flush: () => Promise<void> } {
    if (!jobId) return { flush: async () => undefined };
    let chain: Promise<unknown> = Promise.resolve();
    return {
      sink: (e) => {
        const input = { event: e.event, status: e.status, message: e.message ?? null, duration_ms: e.duration_ms ?? null, error_type: e.error_type ?? null, labels: e.labels ?? {} };
        chain = chain.then(() => deps.emit(jobId, input)).catch(() => undefined);
      },
      flush: async () => {
        await chain;
      },
    };
  }

  /** Destroy and verify; the job (when known) gets the destroy events and its resources updated. */
  async function destroy(client: VastApi, row: Row, reason: string, message: string): Promise<ReleaseResult> {
    const job = row.job;
    if (job) await deps.emit(job.job_id, { event: 'marketplace.instance.release', status: 'info', message, labels: { instance_id: row.instance.id, reason } }).catch(() => undefined);
    const events = jobEmitter(job?.job_id ?? null);
    const result = await releaseInstance({
      client,
      instanceId: row.instance.id,
      signal: AbortSignal.timeout(RELEASE_TIMEOUT_MS),
      ...(events.sink ? { onEvent: events.sink } : {}),
      ...(deps.releaseRetryDelayMs !== undefined ? { retryDelayMs: deps.releaseRetryDelayMs } : {}),
    });
    await events.flush();
    if (job && result.released && job.resources?.marketplace_instance_id === row.instance.id) {
      await deps.markReleased(job.job_id).catch((err: unknown) => deps.log.warn('could not record a release on its job', { job_id: job.job_id, error: errorMessage(err) }));
    }
    const fields = { instance_id: row.instance.id, job_id: job?.job_id ?? row.jobId, reason, released: result.released, verified: result.verified };
    if (result.verified) deps.log.info('released a marketplace instance', fields);
    else deps.log.error('could not confirm the release of a marketplace instance', { ...fields, message: result.message });
    return result;
  }

  async function sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { orphaned: [], released: [], failed: [] };
    const client = deps.marketplace();
    if (!client) return result;
    let found: Row[];
    try {
      found = await rows(client);
    } catch (err) {
      deps.log.warn('orphan sweep: could not list the marketplace instances', { error: errorMessage(err) });
      return result;
    }
    const auto = deps.releaseOrphansAutomatically();
    let remaining = 0;
    for (const row of found) {
      const { entry, job } = row;
      if (entry.classification === 'kept' && job) {
        // A kept machine still answers to its job's spend limit.
        const limit = requestLimit(job) ?? deps.maxCostDefault();
        if (limit !== null && entry.cost_usd_so_far !== null && entry.cost_usd_so_far >= limit) {
          const why = `instance ${entry.instance_id} (kept by job ${job.job_id}) has cost $${entry.cost_usd_so_far.toFixed(4)}, reaching max_cost_usd $${limit}: releasing it`;
          const released = await destroy(client, row, 'budget_exceeded', why);
          (released.verified ? result.released : result.failed).push(entry.instance_id);
        }
        continue;
      }
      if (entry.classification !== 'orphaned') continue;
      result.orphaned.push(entry.instance_id);
      const labels = {
        instance_id: entry.instance_id,
        dph_total: entry.dph_total,
        cost_usd_so_far: entry.cost_usd_so_far,
        state: entry.state,
        release_automatically: auto,
      };
      if (!reported.has(entry.instance_id)) {
        reported.add(entry.instance_id);
        deps.log.warn('orphaned marketplace instance: its job is over (or unknown) and the machine is still billing', { ...labels, job_id: row.jobId, job_status: job?.status ?? null });
        if (job) {
          await deps
            .emit(job.job_id, {
              event: 'marketplace.orphan',
              status: 'info',
              message: `instance ${entry.instance_id} is still up after this job ended (${job.status}) and bills $${entry.dph_total ?? '?'}/h${auto ? '; releasing it (release_orphans_automatically)' : '; release it with POST /v1/marketplace/instances/' + entry.instance_id + '/release'}`,
              labels,
            })
            .catch(() => undefined);
        }
      }
      if (!auto) {
        remaining++;
        continue;
      }
      const released = await destroy(client, row, 'orphan', `releasing orphaned instance ${entry.instance_id} (release_orphans_automatically)`);
      if (released.verified) result.released.push(entry.instance_id);
      else {
        result.failed.push(entry.instance_id);
        remaining++;
      }
    }
    health = { orphaned_instances: remaining, last_sweep_at: new Date(now()).toISOString() };
    return result;
  }

  const service: InstanceService = {
    async list(tenantId, query) {
      const client = deps.marketplace();
      if (!client) return { instances: [], note: 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot see any rented machine' };
      const found = await listOrProblem(client);
      // Another tenant's machines are not shown; one whose job is unknown here belongs to no tenant and is shown to all.
      const visible = found.filter((r) => !r.job || r.job.tenant_id === tenantId).map((r) => r.entry);
      return { instances: query.orphaned ? visible.filter((e) => e.classification === 'orphaned') : visible, note: null };
    },

    async release(tenantId, instanceId) {
      const client = deps.marketplace();
      if (!client) throw new ProblemError(409, 'marketplace_not_configured', 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot release a machine');
      let instance: MarketplaceInstance | null;
      try {
        instance = await client.showInstance(instanceId, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
      } catch (err) {
        if (isMarketplaceError(err) && err.status === 404) instance = null;
        else if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', `could not read instance ${instanceId}: ${err.message}`);
        else throw err;
      }
      if (!instance || isGone(instance)) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not on the marketplace account (already destroyed?)`);
      const jobId = jobIdOfLabel(instance.label);
      // Never touch a machine benchdesk did not rent.
      if (!jobId) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not a benchdesk machine (its label does not start with "${LABEL_PREFIX}"); benchdesk leaves it alone`);
      const job = await deps.getJob(jobId);
      if (job && job.tenant_id !== tenantId) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not one of this tenant's machines`);
      const row: Row = { instance, jobId, job, entry: toEntry(instance, job) };
      if (row.entry.classification === 'active') {
        throw new ProblemError(409, 'instance_active', `instance ${instanceId} belongs to job ${jobId}, which is ${job?.status ?? 'active'}: cancel the job (POST /v1/jobs/${jobId}/cancel) and it releases its machine`);
      }
      const result = await destroy(client, row, 'api', `releasing ${row.entry.classification} instance ${instanceId} on request`);
      if (result.verified && reported.delete(instanceId) && health) {
        health = { ...health, orphaned_instances: Math.max(0, health.orphaned_instances - 1) };
      }
      if (!result.verified) throw new ProblemError(502, 'upstream_error', result.message);
      return { instance_id: instanceId, released: result.released, verified: result.verified, message: result.message, job_id: job?.job_id ?? null };
    },

    sweep() {
      if (!inFlight) {
        inFlight = sweepOnce().finally(() => {
          inFlight = null;
        });
      }
      return inFlight;
    },

    start() {
      if (timer) return;
      void service.sweep();
      timer = setInterval(() => void service.sweep(), Math.max(50, deps.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS));
      timer.unref();
    },

    async stop() {
      clearInterval(timer);
      timer = undefined;
      await inFlight?.catch(() => undefined);
    },

    health: () => health,
  };
  return service;
}

/** The sweep cadence from `BENCHDESK_ORPHAN_SWEEP_INTERVAL_S` (seconds, ≥ 10), else 5 minutes. */
export function sweepIntervalFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.BENCHDESK_ORPHAN_SWEEP_INTERVAL_S?.trim();
  const seconds = raw ? Number(raw) : NaN;
  return Number.isFinite(seconds) && seconds >= 10 ? Math.round(seconds * 1000) : DEFAULT_SWEEP_INTERVAL_MS;
}

/** The instance service wired to the app's parts (composition root helper). */
export function createAppInstanceService(parts: {
  marketplace(): VastApi | null;
  store: Pick<JobStore, 'getJob' | 'updateJob'>;
  engine: Pick<JobEngine, 'emit'>;
  settings: Pick<SettingsStore, 'appSettings'>;
  log: Logger;
  env: NodeJS.ProcessEnv;
  tuning?: { sweepIntervalMs?: number; releaseRetryDelayMs?: number } | undefined;
}): InstanceService {
  const { store } = parts;
  return createInstanceService({
    marketplace: parts.marketplace,
    getJob: (jobId) => store.getJob(jobId),
    async markReleased(jobId) {
      const job = await store.getJob(jobId);
      if (job) await store.updateJob(jobId, { resources: { ...(job.resources ?? {}), marketplace_instance_released: true } });
    },
    emit: (jobId, input) => parts.engine.emit(jobId, input),
    releaseOrphansAutomatically: () => parts.settings.appSettings().release_orphans_automatically,
    maxCostDefault: () => parts.settings.appSettings().default_max_cost_usd,
    log: parts.log,
    sweepIntervalMs: parts.tuning?.sweepIntervalMs ?? sweepIntervalFromEnv(parts.env),
    ...(parts.tuning?.releaseRetryDelayMs !== undefined ? { releaseRetryDelayMs: parts.tuning.releaseRetryDelayMs } : {}),
  });
}
