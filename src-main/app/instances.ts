import type { EmitInput, Logger } from '../engine/types';
import type { JobEngine } from '../engine/engine';
import type { Lease, ReleaseOutcome } from '../lease/lease';
import type { Leases } from '../lease/leases';
import type { MarketplaceAccess } from '../marketplace/access';
import { isAuthError, isGoneAnswer, isMarketplaceError } from '../marketplace/errors';
import { errorMessage, type MarketplaceEvent } from '../marketplace/events';
import type { HeldKeys } from '../marketplace/held-keys';
import { isGone } from '../marketplace/instance-status';
import { LABEL_PREFIX, parseLabel } from '../marketplace/labels';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import type { JobStore } from '../store/types';
import {
  APP_TENANT_ID,
  isTerminal,
  type JobRecord,
  type MarketplaceHealth,
  type MarketplaceInstanceList,
  type ReleaseInstanceResponse,
} from '../../shared';
import { isJobsMachine, type Keyed, type Row, type SweepMachineOwner } from './instance-entries';
import { keyring, listAll, ownSweep, pendingReleases, rowOf, LIST_TIMEOUT_MS, type Listing, type ListingDeps } from './instance-listing';
import { ProblemError } from './problem-error';
import type { SettingsStore } from './settings';
import { releaseRefusal } from './instance-refusals';

export { classifyByJob, classifyMachine, type SweepMachineOwner } from './instance-entries';

/**
 * Rented machines as a resource: the list behind GET /v1/marketplace/instances, the release
 * behind POST /v1/marketplace/instances/{id}/release, and the orphan sweep (at start-up and every
 * few minutes) whose count /healthz shows. Only instances labelled `benchdesk:` are listed or
 * touched: anything else on the account is someone else's. Of those, only this install's (its
 * install id in the label, or an older label that one of its job records names) can be orphans;
 * another install's are `foreign`: never released automatically, and by hand only with `force`.
 * Every release goes through the machine's lease, so the ledger records what it cost in the end
 * (the release's answer says it) and retries it until confirmed; a machine the ledger did not know
 * (an orphan of an earlier version) is taken into it first.
 */

export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;

export type InstanceServiceDeps = {
  /** The key in use, and a client for any other key. */
  access: MarketplaceAccess;
  /** The key each job rented with, until its machine is confirmed gone. */
  heldKeys: HeldKeys;
  /** This data dir's install id (labels `benchdesk:<install_id>:<job_id>`). */
  installId: string;
  /** Every machine's lease, and the ledger of their costs. */
  leases: Leases;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  /** The sweep a machine id (the id in its label) belongs to, when it is not a job's: sweeps rent machines themselves. */
  sweepMachine?(machineId: string): Promise<SweepMachineOwner | undefined>;
  /** Appends an event to a job (any status). */
  emit(jobId: string, input: EmitInput): Promise<unknown>;
  /** Read at every sweep, so changing the setting needs no restart. */
  releaseOrphansAutomatically(): boolean;
  log: Logger;
  now?: () => number;
  sweepIntervalMs?: number;
};

export type SweepResult = { orphaned: number[]; released: number[]; failed: number[] };

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

export function createInstanceService(deps: InstanceServiceDeps): InstanceService {
  return new Instances(deps);
}

class Instances implements InstanceService {
  #health: MarketplaceHealth | null = null;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<SweepResult> | null = null;
  /** Orphans already logged and recorded on their job: one `marketplace.orphan` event each, not one per sweep. */
  readonly #reported = new Set<number>();
  /** Why the last release of a machine failed (until one succeeds). */
  readonly #releaseErrors = new Map<number, string>();
  readonly #listing: ListingDeps;

  constructor(private readonly deps: InstanceServiceDeps) {
    this.#listing = { ...deps, now: deps.now ?? Date.now };
  }

  async list(tenantId: string, query: { orphaned?: boolean | undefined }): Promise<MarketplaceInstanceList> {
    let listing: Listing | null;
    try {
      listing = await listAll(this.#listing, this.#releaseErrors);
    } catch (err) {
      if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', `could not list the marketplace instances: ${err.message}`);
      throw err;
    }
    if (!listing) return { instances: [], note: 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot see any rented machine' };
    // Another tenant's machines are not shown; one whose job is unknown here belongs to no tenant and is shown to all.
    const visible = listing.rows.filter((r) => (r.sweep ? r.sweep.tenant_id === tenantId : !r.entry.job || !r.job || r.job.tenant_id === tenantId)).map((r) => r.entry);
    const pending = (await pendingReleases(this.#listing, new Set(listing.rows.map((r) => r.instance.id)))).filter((e) => this.#ledgerTenant(e.instance_id) === tenantId);
    const note = listing.errors.length > 0 ? `some machines may be missing: ${listing.errors.join('; ')}` : null;
    const all = [...visible, ...pending];
    return { instances: query.orphaned ? all.filter((e) => e.classification === 'orphaned') : all, note };
  }

  #ledgerTenant(instanceId: number): string | undefined {
    return this.deps.leases.ledger.byInstance(instanceId)?.tenant_id;
  }

  async release(tenantId: string, instanceId: number, options: { force?: boolean | undefined } = {}): Promise<ReleaseInstanceResponse> {
    const { keys, heldBy } = await keyring(this.#listing);
    if (keys.length === 0) throw new ProblemError(409, 'marketplace_not_configured', 'no marketplace key is configured (set VAST_API_KEY), so benchdesk cannot release a machine');
    const found = await this.#findInstance(instanceId, keys);
    if (!found) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not on the marketplace account (already destroyed?)`);
    const { instance, seenBy } = found;
    const label = parseLabel(instance.label);
    // Never touch a machine benchdesk did not rent.
    if (!label) throw new ProblemError(404, 'instance_not_found', `instance ${instanceId} is not a benchdesk machine (its label does not start with "${LABEL_PREFIX}"); benchdesk leaves it alone`);
    const row = await rowOf(this.#listing, instance, label, seenBy, this.#releaseErrors.get(instanceId));
    const refusal = releaseRefusal(row, tenantId, options.force === true);
    if (refusal) throw refusal;
    // The key the job rented with first, then the keys that saw the machine.
    const own = heldBy.get(label.jobId);
    row.keys.sort((a, b) => Number(b.key === own) - Number(a.key === own));
    const ownKeyed = own !== undefined && !row.keys.some((k) => k.key === own) ? keys.find((k) => k.key === own) : undefined;
    if (ownKeyed) row.keys.unshift(ownKeyed);
    const result = await this.#destroy(row, 'api', `releasing ${row.entry.classification} instance ${instanceId} on request`);
    if (result.verified && this.#reported.delete(instanceId) && this.#health) {
      this.#health = { ...this.#health, orphaned_instances: Math.max(0, this.#health.orphaned_instances - 1) };
    }
    if (!result.verified) throw new ProblemError(502, 'upstream_error', `${result.message} benchdesk keeps trying to release it; it counts in the spend until it is gone.`);
    return { instance_id: instanceId, released: result.released, verified: result.verified, message: result.message, job_id: row.entry.job?.job_id ?? null, cost_usd: result.cost.cost_usd, download_usd: result.cost.download_usd };
  }

  /** The machine's lease (taken into the ledger first when it does not know the machine). */
  async #leaseOf(row: Row): Promise<Lease> {
    const id = row.instance.id;
    const known = await this.deps.leases.byInstance(id);
    if (known) return known;
    const [first] = row.keys;
    const owner = row.sweep
      ? { kind: 'sweep' as const, sweep_id: row.sweep.sweep_id, machine_id: row.label.jobId, gpu: row.sweep.gpu }
      : { kind: 'job' as const, job_id: row.label.jobId, job_kind: row.job?.kind ?? 'unknown' };
    const foreign = row.entry.classification === 'foreign';
    return this.deps.leases.adopt(row.instance, {
      owner,
      tenantId: row.job?.tenant_id ?? row.sweep?.tenant_id ?? APP_TENANT_ID,
      ...(foreign ? { leaseId: `instance-${id}` } : {}),
      keyed: first ? { key: first.key, client: first.client } : null,
    });
  }

  /**
   * Releases a machine through its lease; the job (when ours) gets the events. A confirmed release
   * drops the job's held key and the machine's proxy token (the lease does); an unconfirmed one is
   * retried by the lease service until it is.
   */
  async #destroy(row: Row, reason: string, message: string): Promise<ReleaseOutcome> {
    const job = row.entry.job ? row.job : undefined;
    const id = row.instance.id;
    if (job) await this.deps.emit(job.job_id, { event: 'marketplace.instance.release', status: 'info', message, labels: { instance_id: id, reason } }).catch(() => undefined);
    const events = jobEmitter(this.deps, job?.job_id ?? null);
    const lease = await this.#leaseOf(row);
    const result = await lease.release(reason, events.sink);
    await events.flush();
    if (result.verified) this.#releaseErrors.delete(id);
    else this.#releaseErrors.set(id, result.message);
    if (job && result.verified && isJobsMachine(job, id)) await this.deps.heldKeys.drop(job.job_id).catch(() => undefined);
    const fields = { instance_id: id, job_id: job?.job_id ?? row.label.jobId, reason, released: result.released, verified: result.verified, cost_usd: result.cost.cost_usd };
    if (result.verified) this.deps.log.info('released a marketplace instance', fields);
    else this.deps.log.error('could not confirm the release of a marketplace instance', { ...fields, message: result.message });
    return result;
  }

  /**
   * Held keys no job needs any more: the job is over, no key sees a machine of it, and no lease of
   * it is open. Only after a listing in which every key answered (a machine must not hide behind a
   * failed listing).
   */
  async #forgetIdleKeys(listing: Listing): Promise<void> {
    if (!listing.complete) return;
    const holding = new Set(listing.rows.map((r) => r.label.jobId));
    for (const jobId of listing.heldBy.keys()) {
      if (holding.has(jobId)) continue;
      const lease = this.deps.leases.ledger.get(jobId);
      if (lease && lease.state !== 'released' && lease.state !== 'empty') continue;
      const job = await this.deps.getJob(jobId);
      if (job && !isTerminal(job.status)) continue;
      // A sweep's machine being rented holds its key before the machine is listed.
      if (!job && (await ownSweep(this.#listing, { installId: this.deps.installId, jobId }))?.active) continue;
      await this.deps.heldKeys.drop(jobId).catch(() => undefined);
    }
  }

  async #sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { orphaned: [], released: [], failed: [] };
    let listing: Listing | null;
    try {
      listing = await listAll(this.#listing, this.#releaseErrors);
    } catch (err) {
      this.deps.log.warn('orphan sweep: could not list the marketplace instances', { error: errorMessage(err) });
      return result;
    }
    if (!listing) return result;
    for (const error of listing.errors) this.deps.log.warn('orphan sweep: one marketplace key could not list its instances', { error });
    const auto = this.deps.releaseOrphansAutomatically();
    let remaining = 0;
    for (const row of listing.rows) {
      // Another install's machine is never ours to release; an active or kept one belongs to its owner (its lease watches a kept one's limit).
      if (row.entry.classification !== 'orphaned') continue;
      result.orphaned.push(row.entry.instance_id);
      await this.#reportOrphan(row, auto);
      if (!auto) {
        remaining++;
        continue;
      }
      const released = await this.#destroy(row, 'orphan', `releasing orphaned instance ${row.entry.instance_id} (release_orphans_automatically)`);
      if (released.verified) result.released.push(row.entry.instance_id);
      else {
        result.failed.push(row.entry.instance_id);
        remaining++;
      }
    }
    this.#health = { orphaned_instances: remaining, last_sweep_at: new Date((this.deps.now ?? Date.now)()).toISOString() };
    await this.#forgetIdleKeys(listing);
    return result;
  }

  /** One log line and one `marketplace.orphan` event per orphan, not one per sweep. */
  async #reportOrphan(row: Row, auto: boolean): Promise<void> {
    const { entry, job } = row;
    if (this.#reported.has(entry.instance_id)) return;
    this.#reported.add(entry.instance_id);
    const labels = { instance_id: entry.instance_id, dph_total: entry.dph_total, cost_usd_so_far: entry.cost_usd_so_far, state: entry.state, release_automatically: auto };
    this.deps.log.warn('orphaned marketplace instance: its job is over (or unknown) and the machine is still billing', { ...labels, job_id: row.label.jobId, job_status: job?.status ?? null });
    if (!job) return;
    const how = auto ? '; releasing it (release_orphans_automatically)' : `; release it with POST /v1/marketplace/instances/${entry.instance_id}/release`;
    await this.deps
      .emit(job.job_id, { event: 'marketplace.orphan', status: 'info', message: `instance ${entry.instance_id} is still up after this job ended (${job.status}) and bills $${entry.dph_total ?? '?'}/h${how}`, labels })
      .catch(() => undefined);
  }

  /** The machine as one of the keys sees it, with the keys that can see it; null when none does. */
  async #findInstance(instanceId: number, keys: readonly Keyed[]): Promise<{ instance: MarketplaceInstance; seenBy: Keyed[] } | null> {
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

  sweep(): Promise<SweepResult> {
    // Supervised: a failure of one sweep is logged and the next runs as planned; nothing escapes to the process.
    this.#inFlight ??= this.#sweepOnce()
      .catch((err: unknown) => {
        this.deps.log.error('orphan sweep failed', { error: errorMessage(err) });
        return { orphaned: [], released: [], failed: [] };
      })
      .finally(() => {
        this.#inFlight = null;
      });
    return this.#inFlight;
  }

  start(): void {
    if (this.#timer) return;
    void this.sweep();
    this.#timer = setInterval(() => void this.sweep(), Math.max(50, this.deps.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS));
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#inFlight?.catch(() => undefined);
  }

  health(): MarketplaceHealth | null {
    return this.#health;
  }
}

/** The release's events on the job, written in order; `flush` waits for them (the caller reads them next). */
function jobEmitter(deps: Pick<InstanceServiceDeps, 'emit'>, jobId: string | null): { sink?: (e: MarketplaceEvent) => void; flush: () => Promise<void> } {
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
  leases: Leases;
  store: Pick<JobStore, 'getJob'>;
  engine: Pick<JobEngine, 'emit'>;
  settings: Pick<SettingsStore, 'appSettings'>;
  sweepMachine?: (machineId: string) => Promise<SweepMachineOwner | undefined>;
  log: Logger;
  env: NodeJS.ProcessEnv;
  tuning?: { sweepIntervalMs?: number } | undefined;
}): InstanceService {
  return createInstanceService({
    access: parts.access,
    heldKeys: parts.heldKeys,
    installId: parts.installId,
    leases: parts.leases,
    getJob: (jobId) => parts.store.getJob(jobId),
    ...(parts.sweepMachine ? { sweepMachine: parts.sweepMachine } : {}),
    emit: (jobId, input) => parts.engine.emit(jobId, input),
    releaseOrphansAutomatically: () => parts.settings.appSettings().release_orphans_automatically,
    log: parts.log,
    sweepIntervalMs: parts.tuning?.sweepIntervalMs ?? sweepIntervalFromEnv(parts.env),
  });
}
