import { rm } from 'node:fs/promises';
import path from 'node:path';
import type {
  InstanceClassification,
  JobRecord,
  MarketplaceHealth,
  MarketplaceInstanceEntry,
  MarketplaceInstanceList,
  ReleaseInstanceResponse,
} from '../../shared';
import { APP_TENANT_ID, isTerminal } from '../../shared';
import type { EmitInput, Logger } from '../engine/types';
import { costBetween } from '../engine/workflows/cost-meter';
import type { MarketplaceAccess } from '../marketplace/access';
import { isAuthError, isGoneAnswer, isMarketplaceError } from '../marketplace/errors';
import { errorMessage, type MarketplaceEvent } from '../marketplace/events';
import type { HeldKeys } from '../marketplace/held-keys';
import { isGone } from '../marketplace/instance-status';
import { LABEL_PREFIX, parseLabel, releaseInstance, type ParsedLabel, type ReleaseResult } from '../marketplace/provisioning';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import type { JobEngine } from '../engine/engine';
import type { JobStore } from '../store/types';
import { ProblemError } from './problem-error';
import type { SettingsStore } from './settings';

/**
 * Rented machines as a resource: the list behind GET /v1/marketplace/instances, the release
 * behind POST /v1/marketplace/instances/{id}/release, and the orphan sweep (at start-up and every
 * few minutes) whose count /healthz shows. Only instances labelled `benchdesk:` are listed or
 * touched: anything else on the account is someone else's. Of those, only this install's (its
 * install id in the label, or an older label that one of its job records names) can be orphans;
 * another install's are `foreign`: never released automatically, and by hand only with `force`.
 * Every key that still holds a machine is used (the key in use, and the key each job rented with),
 * so a key changed in Settings never hides a machine that bills.
 */

export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;
/** Bound on one marketplace listing (the list and the sweep). */
const LIST_TIMEOUT_MS = 30_000;
/** Bound on one destroy-and-verify. */
const RELEASE_TIMEOUT_MS = 120_000;

export type InstanceServiceDeps = {
  /** The key in use, and a client for any other key. */
  access: MarketplaceAccess;
  /** The key each job rented with, until its machine is confirmed gone. */
  heldKeys: HeldKeys;
  /** This data dir's install id (labels `benchdesk:<install_id>:<job_id>`). */
  installId: string;
  /** Where the proxy token files of rented machines live (`secrets/instance-<id>.token`), removed after a release. */
  dataDir: string;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  /** The sweep a machine id (the id in its label) belongs to, when it is not a job's: sweeps rent machines themselves. */
  sweepMachine?(machineId: string): Promise<SweepMachineOwner | undefined>;
  /** Records a release of the job's own machine: whether the marketplace took it, and why it failed (null: it did not). */
  recordRelease(jobId: string, instanceId: number, outcome: { released: boolean; error: string | null }): Promise<void>;
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

/** A sweep's machine: `active` while the sweep runs and holds it. */
export type SweepMachineOwner = { sweep_id: string; tenant_id: string; name: string; gpu: string; model: string | null; status: string; active: boolean };

export type InstanceService = {
  list(tenantId: string, query: { orphaned?: boolean | undefined }): Promise<MarketplaceInstanceList>;
  release(tenantId: string, instanceId: number, options?: { force?: boolean | undefined }): Promise<ReleaseInstanceResponse>;
  /** One sweep now (concurrent calls share the one in flight). Never rejects: a failure is logged. */
  sweep(): Promise<SweepResult>;
  /** Sweeps now and then every interval, until stop(). */
  start(): void;
  stop(): Promise<void>;
  /** The last sweep's figures; null before the first sweep or without a key. */
  health(): MarketplaceHealth | null;
};

/** A key that can be used, and whether it is the one in use or one a job holds. */
type Keyed = { key: string; client: VastApi; source: 'current' | 'held' };

type Row = {
  instance: MarketplaceInstance;
  label: ParsedLabel;
  job: JobRecord | undefined;
  sweep?: SweepMachineOwner | undefined;
  entry: MarketplaceInstanceEntry;
  /** Keys that can see this machine; the one its job rented with first. */
  keys: Keyed[];
};

/** Why a machine of this install is still up, from its job (active / kept / orphaned). */
export function classifyByJob(job: JobRecord | undefined): InstanceClassification {
  if (!job) return 'orphaned';
  if (job.status === 'queued' || job.status === 'running') return 'active';
  if (job.kind === 'llm-instance' && job.status === 'succeeded') return 'kept';
  // Kept on request, unless the spend limit stopped the job (its machine was due back then).
  if ((job.kind === 'benchmark' || job.kind === 'suite') && job.request.marketplace_stop_instance === false && job.error_code !== 'budget_exceeded') return 'kept';
  return 'orphaned';
}

/**
 * Whose machine this is. Ours: our install id in the label (an unknown job makes it an orphan), or
 * an older label (`benchdesk:<job_id>`) naming one of our jobs. Anything else labelled `benchdesk:`
 * is another install's: `foreign`.
 */
export function classifyMachine(label: ParsedLabel, job: JobRecord | undefined, installId: string): InstanceClassification {
  if (label.installId === installId) return classifyByJob(job);
  if (label.installId === null && job) return classifyByJob(job);
  return 'foreign';
}

function requestLimit(job: JobRecord): number | null {
  const value = (job.request as { max_cost_usd?: unknown }).max_cost_usd;
  return typeof value === 'number' ? value : null;
}

/** The job's own machine (the one its record names), or one it never learnt the id of. */
function isJobsMachine(job: JobRecord, instanceId: number): boolean {
  const recorded = job.resources?.marketplace_instance_id;
  return recorded === instanceId || recorded == null;
}

export function createInstanceService(deps: InstanceServiceDeps): InstanceService {
  const now = deps.now ?? Date.now;
  let health: MarketplaceHealth | null = null;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<SweepResult> | null = null;
  /** Orphans already logged and recorded on their job: one `marketplace.orphan` event each, not one per sweep. */
  const reported = new Set<number>();
  /** Why the last release of a machine failed (until one succeeds). */
  const releaseErrors = new Map<number, string>();

  /** The key in use first, then every key a job holds (each key once). */
  async function keyring(): Promise<{ keys: Keyed[]; heldBy: Map<string, string> }> {
    const keys: Keyed[] = [];
    const seen = new Set<string>();
    const current = deps.access.current();
    if (current) {
      keys.push({ ...current, source: 'current' });
      seen.add(current.key);
    }
    const heldBy = new Map<string, string>();
    const { held, unreadable } = await deps.heldKeys.all();
    for (const name of unreadable) deps.log.warn('a held marketplace key file cannot be read; it is ignored', { file: name });
    for (const { jobId, key } of held) {
      heldBy.set(jobId, key);
      if (seen.has(key)) continue;
      seen.add(key);
      const client = deps.access.clientFor(key);
      if (client) keys.push({ key, client, source: 'held' });
      else deps.log.warn('a job holds a marketplace key that cannot be sent (not printable ASCII); it is ignored', { job_id: jobId });
    }
    return { keys, heldBy };
  }

  type Listing = { rows: Row[]; complete: boolean; errors: string[]; heldBy: Map<string, string> };

  /** Every benchdesk machine any of the keys can see. `complete`: every key listed without error. */
  async function listAll(): Promise<Listing | null> {
    const { keys, heldBy } = await keyring();
    if (keys.length === 0) return null;
    const byId = new Map<number, Row>();
    const errors: string[] = [];
    let firstError: unknown = null;
    let listedBy = 0;
    for (const keyed of keys) {
      let found: MarketplaceInstance[];
      try {
        found = await keyed.client.listInstances({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
        listedBy++;
      } catch (err) {
        firstError ??= err;
        errors.push(`${keyed.source === 'current' ? 'the key in use' : 'a key a job rented with'}: ${errorMessage(err)}`);
        continue;
      }
      for (const instance of found) {
        const label = parseLabel(instance.label);
        if (!label || isGone(instance)) continue;
        const row = byId.get(instance.id);
        if (row) {
          row.keys.push(keyed);
          continue;
        }
        const job = await deps.getJob(label.jobId);
        const sweep = job ? undefined : await ownSweep(label);
        byId.set(instance.id, { instance, label, job, sweep, entry: toEntry(instance, label, job, sweep), keys: [keyed] });
      }
    }
    if (listedBy === 0) throw firstError;
    const rows = [...byId.values()];
    // The key a job rented with goes first: it is the one that can certainly release its machine.
    for (const row of rows) {
      const own = heldBy.get(row.label.jobId);
      row.keys.sort((a, b) => Number(b.key === own) - Number(a.key === own));
    }
    return { rows, complete: errors.length === 0, errors, heldBy };
  }

  /** The sweep of a machine of this install that no job names. */
  async function ownSweep(label: ParsedLabel): Promise<SweepMachineOwner | undefined> {
    if (label.installId !== deps.installId || !deps.sweepMachine) return undefined;
    return deps.sweepMachine(label.jobId).catch(() => undefined);
  }

  function toEntry(instance: MarketplaceInstance, label: ParsedLabel, job: JobRecord | undefined, sweep?: SweepMachineOwner): MarketplaceInstanceEntry {
    const startMs = instance.start_date != null ? instance.start_date * 1000 : job?.resources?.rented_at ? Date.parse(job.resources.rented_at) : null;
    const dph = instance.dph_total ?? job?.resources?.dph_total ?? null;
    // A sweep's machine belongs to its sweep: active while the sweep runs and holds it, an orphan after.
    const classification = sweep ? (sweep.active ? 'active' : 'orphaned') : classifyMachine(label, job, deps.installId);
    // Another install's job ids mean nothing here: its machine is shown by its label alone.
    const ownJob = classification === 'foreign' ? undefined : job;
    const ownResources = ownJob && ownJob.resources?.marketplace_instance_id === instance.id ? ownJob.resources : null;
    const jobError = ownResources?.marketplace_release_error ?? null;
    const downloadUsd = ownResources?.download_usd ?? null;
    const machineUsd = startMs !== null && dph !== null && Number.isFinite(startMs) ? costBetween(dph, startMs, now()) : null;
    return {
      instance_id: instance.id,
      label: instance.label ?? '',
      job: ownJob ? { job_id: ownJob.job_id, kind: ownJob.kind, status: ownJob.status } : null,
      gpu_name: instance.gpu_name ?? null,
      num_gpus: instance.num_gpus ?? null,
      dph_total: dph,
      rented_at: startMs !== null && Number.isFinite(startMs) ? new Date(startMs).toISOString() : null,
      cost_usd_so_far: machineUsd === null ? null : Math.round((machineUsd + (downloadUsd ?? 0)) * 1_000_000) / 1_000_000,
      download_usd: downloadUsd,
      state: instance.actual_status ?? null,
      classification,
      ...(sweep ? { sweep: { sweep_id: sweep.sweep_id, name: sweep.name, gpu: sweep.gpu, model: sweep.model, status: sweep.status } } : {}),
      release_error: releaseErrors.get(instance.id) ?? jobError,
    };
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

  /**
   * Destroy and verify with the machine's keys (its job's own first; another only if the first is
   * refused and it can see the machine). The job (when ours) gets the events and its resources
   * updated; a confirmed release drops the job's held key and the machine's proxy token file.
   */
  async function destroy(row: Row, fallbacks: readonly Keyed[], reason: string, message: string): Promise<ReleaseResult> {
    const job = row.entry.job ? row.job : undefined;
    const id = row.instance.id;
    if (job) await deps.emit(job.job_id, { event: 'marketplace.instance.release', status: 'info', message, labels: { instance_id: id, reason } }).catch(() => undefined);
    const events = jobEmitter(job?.job_id ?? null);
    const [first, ...rest] = [...row.keys, ...fallbacks.filter((k) => !row.keys.some((r) => r.key === k.key))];
    if (!first) throw new Error(`no marketplace key can see instance ${id}`);
    const result = await releaseInstance({
      client: first.client,
      fallbackClients: rest.map((k) => k.client),
      instanceId: id,
      signal: AbortSignal.timeout(RELEASE_TIMEOUT_MS),
      ...(events.sink ? { onEvent: events.sink } : {}),
      ...(deps.releaseRetryDelayMs !== undefined ? { retryDelayMs: deps.releaseRetryDelayMs } : {}),
    });
    await events.flush();
    if (result.verified) releaseErrors.delete(id);
    else releaseErrors.set(id, result.message);
    if (job && job.resources?.marketplace_instance_id === id) {
      await deps
        .recordRelease(job.job_id, id, { released: result.released, error: result.verified ? null : result.message })
        .catch((err: unknown) => deps.log.warn('could not record a release on its job', { job_id: job.job_id, error: errorMessage(err) }));
    }
    if (job && result.verified && isJobsMachine(job, id)) await deps.heldKeys.drop(job.job_id).catch(() => undefined);
    if (result.verified) {
      // The machine's proxy token opens nothing any more: do not leave the secret lying around.
      await rm(path.join(deps.dataDir, 'secrets', `instance-${id}.token`), { force: true }).catch(() => undefined);
    }
    const fields = { instance_id: id, job_id: job?.job_id ?? row.label.jobId, reason, released: result.released, verified: result.verified };
    if (result.verified) deps.log.info('released a marketplace instance', fields);
    else deps.log.error('could not confirm the release of a marketplace instance', { ...fields, message: result.message });
    return result;
  }

  /**
   * Held keys no job needs any more: the job is over and no key sees a machine of it. Only after a
   * listing in which every key answered (a machine must not hide behind a failed listing).
   */
  async function forgetIdleKeys(listing: Listing): Promise<void> {
    if (!listing.complete) return;
    const holding = new Set(listing.rows.map((r) => r.label.jobId));
    for (const jobId of listing.heldBy.keys()) {
      if (holding.has(jobId)) continue;
      const job = await deps.getJob(jobId);
      if (job && !isTerminal(job.status)) continue;
      // A sweep's machine being rented holds its key before the machine is listed.
      if (!job && (await ownSweep({ installId: deps.installId, jobId }))?.active) continue;
      await deps.heldKeys.drop(jobId).catch(() => undefined);
    }
  }

  async function sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { orphaned: [], released: [], failed: [] };
    let listing: Listing | null;
    try {
      listing = await listAll();
    } catch (err) {
      deps.log.warn('orphan sweep: could not list the marketplace instances', { error: errorMessage(err) });
      return result;
    }
    if (!listing) return result;
    for (const error of listing.errors) deps.log.warn('orphan sweep: one marketplace key could not list its instances', { error });
    const auto = deps.releaseOrphansAutomatically();
    let remaining = 0;
    for (const row of listing.rows) {
      const { entry, job } = row;
      if (entry.classification === 'kept' && job) {
        // A kept machine still answers to its job's spend limit.
        const limit = requestLimit(job) ?? deps.maxCostDefault();
        if (limit !== null && entry.cost_usd_so_far !== null && entry.cost_usd_so_far >= limit) {
          const why = `instance ${entry.instance_id} (kept by job ${job.job_id}) has cost $${entry.cost_usd_so_far.toFixed(4)} (machine time and download), reaching its spend limit of $${limit}: releasing it`;
          const released = await destroy(row, [], 'budget_exceeded', why);
          (released.verified ? result.released : result.failed).push(entry.instance_id);
        }
        continue;
      }
      // Another install's machine is never ours to release; an active one belongs to its job.
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
        deps.log.warn('orphaned marketplace instance: its job is over (or unknown) and the machine is still billing', { ...labels, job_id: row.label.jobId, job_status: job?.status ?? null });
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
      const released = await destroy(row, [], 'orphan', `releasing orphaned instance ${entry.instance_id} (release_orphans_automatically)`);
      if (released.verified) result.released.push(entry.instance_id);
      else {
        result.failed.push(entry.instance_id);
        remaining++;
      }
    }
    health = { orphaned_instances: remaining, last_sweep_at: new Date(now()).toISOString() };
    await forgetIdleKeys(listing);
    return result;
  }

  /** The machine as one of the keys sees it, with the keys that can see it; null when none does. */
  async function findInstance(instanceId: number, keys: readonly Keyed[]): Promise<{ instance: MarketplaceInstance; seenBy: Keyed[] } | null> {
    let refused: unknown = null;
    let failed: unknown = null;
    const seenBy: Keyed[] = [];
    let instance: MarketplaceInstance | null = null;
    for (const keyed of keys) {
      try {
        const found = await keyed.client.showInstance(instanceId, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
        if (found && !isGone(found)) {
          instance ??= found;
          seenBy.push(keyed);
        }
      } catch (err) {
        if (isGoneAnswer(err)) continue;
        if (isAuthError(err)) refused ??= err;
        else if (isMarketplaceError(err)) failed ??= err;
        else throw err;
      }
    }
    if (instance) return { instance, seenBy };
    const problem = failed ?? refused;
    if (problem) throw new ProblemError(502, 'upstream_error', `could not read instance ${instanceId}: ${errorMessage(problem)}`);
    return null;
  }

  const service: InstanceService = {
    async list(tenantId, query) {
      let listing: Listing | null;
      try {
        listing = await listAll();
      } catch (err) {
        if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', `could not list the marketplace instances: ${err.message}`);
        throw err;
      }
      if (!listing) return { instances: [], note: 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot see any rented machine' };
      // Another tenant's machines are not shown; one whose job is unknown here belongs to no tenant and is shown to all.
      const visible = listing.rows.filter((r) => (r.sweep ? r.sweep.tenant_id === tenantId : !r.entry.job || !r.job || r.job.tenant_id === tenantId)).map((r) => r.entry);
      const note = listing.errors.length > 0 ? `some machines may be missing: ${listing.errors.join('; ')}` : null;
      return { instances: query.orphaned ? visible.filter((e) => e.classification === 'orphaned') : visible, note };
    },

    async release(tenantId, instanceId, options = {}) {
      const { keys, heldBy } = await keyring();
      if (keys.length === 0) throw new ProblemError(409, 'marketplace_not_configured', 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot release a machine');
      const found = await findInstance(instanceId, keys);
      if (!found) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not on the marketplace account (already destroyed?)`);
      const { instance, seenBy } = found;
      const label = parseLabel(instance.label);
      // Never touch a machine benchdesk did not rent.
      if (!label) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not a benchdesk machine (its label does not start with "${LABEL_PREFIX}"); benchdesk leaves it alone`);
      const job = await deps.getJob(label.jobId);
      const sweep = job ? undefined : await ownSweep(label);
      const row: Row = { instance, label, job, sweep, entry: toEntry(instance, label, job, sweep), keys: seenBy };
      if (sweep && sweep.tenant_id !== tenantId) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not one of this tenant's machines`);
      if (sweep?.active) {
        throw new ProblemError(409, 'instance_active', `instance ${instanceId} is the ${sweep.gpu} machine of sweep ${sweep.sweep_id}, which is ${sweep.status}: cancel the sweep (POST /v1/sweeps/${sweep.sweep_id}/cancel) and it releases its machines`);
      }
      if (row.entry.classification === 'foreign' && options.force !== true) {
        throw new ProblemError(
          409,
          'instance_foreign',
          `instance ${instanceId} belongs to another benchdesk install (label "${instance.label ?? ''}"): release it from that install, or send {"force": true} to release it from here`,
        );
      }
      // Another install's machine is nobody's here: only the app's own tenant may force its release.
      if (row.entry.classification === 'foreign' && tenantId !== APP_TENANT_ID) {
        throw new ProblemError(403, 'forbidden_tenant', `instance ${instanceId} belongs to another benchdesk install; only the app's own tenant ('${APP_TENANT_ID}') may force its release`);
      }
      if (row.entry.job && job && job.tenant_id !== tenantId) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not one of this tenant's machines`);
      if (row.entry.classification === 'active') {
        throw new ProblemError(409, 'instance_active', `instance ${instanceId} belongs to job ${label.jobId}, which is ${job?.status ?? 'active'}: cancel the job (POST /v1/jobs/${label.jobId}/cancel) and it releases its machine`);
      }
      // The key the job rented with first, then the keys that saw the machine.
      const own = heldBy.get(label.jobId);
      row.keys.sort((a, b) => Number(b.key === own) - Number(a.key === own));
      const ownKeyed = own !== undefined && !row.keys.some((k) => k.key === own) ? keys.find((k) => k.key === own) : undefined;
      if (ownKeyed) row.keys.unshift(ownKeyed);
      const result = await destroy(row, keys, 'api', `releasing ${row.entry.classification} instance ${instanceId} on request`);
      if (result.verified && reported.delete(instanceId) && health) {
        health = { ...health, orphaned_instances: Math.max(0, health.orphaned_instances - 1) };
      }
      if (!result.verified) throw new ProblemError(502, 'upstream_error', result.message);
      return { instance_id: instanceId, released: result.released, verified: result.verified, message: result.message, job_id: row.entry.job?.job_id ?? null };
    },

    sweep() {
      if (!inFlight) {
        // Supervised: a failure of one sweep is logged and the next runs as planned; nothing escapes to the process.
        inFlight = sweepOnce()
          .catch((err: unknown) => {
            deps.log.error('orphan sweep failed', { error: errorMessage(err) });
            return { orphaned: [], released: [], failed: [] };
          })
          .finally(() => {
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
  access: MarketplaceAccess;
  heldKeys: HeldKeys;
  installId: string;
  dataDir: string;
  store: Pick<JobStore, 'getJob' | 'updateJob'>;
  engine: Pick<JobEngine, 'emit'>;
  settings: Pick<SettingsStore, 'appSettings'>;
  sweepMachine?: (machineId: string) => Promise<SweepMachineOwner | undefined>;
  log: Logger;
  env: NodeJS.ProcessEnv;
  tuning?: { sweepIntervalMs?: number; releaseRetryDelayMs?: number } | undefined;
}): InstanceService {
  const { store } = parts;
  return createInstanceService({
    access: parts.access,
    heldKeys: parts.heldKeys,
    installId: parts.installId,
    dataDir: parts.dataDir,
    getJob: (jobId) => store.getJob(jobId),
    ...(parts.sweepMachine ? { sweepMachine: parts.sweepMachine } : {}),
    async recordRelease(jobId, _instanceId, outcome) {
      const job = await store.getJob(jobId);
      if (!job) return;
      await store.updateJob(jobId, {
        resources: { ...(job.resources ?? {}), marketplace_instance_released: outcome.released, marketplace_release_error: outcome.error },
      });
    },
    emit: (jobId, input) => parts.engine.emit(jobId, input),
    releaseOrphansAutomatically: () => parts.settings.appSettings().release_orphans_automatically,
    maxCostDefault: () => parts.settings.appSettings().default_max_cost_usd,
    log: parts.log,
    sweepIntervalMs: parts.tuning?.sweepIntervalMs ?? sweepIntervalFromEnv(parts.env),
    ...(parts.tuning?.releaseRetryDelayMs !== undefined ? { releaseRetryDelayMs: parts.tuning.releaseRetryDelayMs } : {}),
  });
}
