import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogEntry } from '../../shared/models';
import type { OfferSummary } from '../../shared/requests';
import type { KeyedClient } from '../marketplace/access';
import { MarketplaceError } from '../marketplace/errors';
import { errorMessage, type MarketplaceEventSink } from '../marketplace/events';
import { releaseInstance, type ReleaseResult } from '../marketplace/release';
import { rentCheapestFit, type RentedInstance, type RentRequest } from '../marketplace/rent';
import type { RentedServer } from '../marketplace/rented-server';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import { waitForRunning, type RunningInstance } from '../marketplace/wait-running';
import type { LeaseCost } from './cost';
import type { LeaseDeps } from './lease-deps';
import type { LeaseDownload, LeaseRecord } from './lease-record';

/**
 * One rented machine, from search to release, as its owner (a job, a kept llm-instance, a sweep's
 * GPU) holds it: provision (search among the hosts that can run the template, rent, wait until it
 * runs, then the owner's readiness check), prepare (the owner's pull or warm-up, whose downloads it
 * adds here), keep or release. Every change goes to the ledger; the release is confirmed by a
 * read-back and, when it is not, retried by the lease service until it is, the machine counting in
 * the ledger all the while. The pull and warm-up of Ollama (or the wait for vLLM's model) are the
 * owner's: the lease only knows a machine, what its template serves, its port and its costs.
 */

export type ProvisionSpec = {
  request: RentRequest;
  /** What the machine must hold: GPU memory, disk, the download the offers are ranked by. */
  sizing: CatalogEntry;
  /** Sent as OLLAMA_MODEL, or MODEL_NAME for vLLM (default sizing.name). */
  ollamaModel?: string;
  /** What the machine serves (default `ollama`); `vllm` rents a vLLM template (found by name without a hash) and waits for its port 8000. */
  server?: RentedServer;
  extraEnv?: Record<string, string>;
  /** The pre-flight estimate: an offer whose expected cost exceeds the limit is not rented. */
  budget: { maxCostUsd: number | null; durationSeconds: number };
  signal: AbortSignal;
  onEvent?: MarketplaceEventSink;
  /** As soon as the machine exists, before the wait: the owner records it (crash recovery). */
  onRented?: (rented: RentedInstance) => Promise<void>;
  /** Once it runs: the service on it answers (Ollama's version, a vLLM's model list). */
  ready?: (machine: LeasedMachine, signal: AbortSignal) => Promise<void>;
};

export type LeasedMachine = {
  instanceId: number;
  /** What it serves (the template's server): Ollama, or vLLM's OpenAI-compatible API. */
  server: RentedServer;
  /** The template it was rented from (a vLLM one may have been found by name). */
  template: { hash_id: string; name: string | null };
  /** `http(s)://{ip}:{port}` of the container port. */
  backendUrl: string;
  /** Headers for every call to it (the proxy token, when the template asks for one). */
  headers: Record<string, string>;
  offer: OfferSummary;
  dphTotal: number;
  rentedAt: string;
  /** The host's download price ($/GB); null when it does not say. */
  inetDownCost: number | null;
  /** Where the proxy token is kept (0600), null when the template turns auth off. */
  tokenFile: string | null;
  /** The key it was rented with, and its client: the release uses it, whatever the key in use is by then. */
  keyed: KeyedClient;
};

/** A release's outcome with what the machine cost in the end (or so far, while it is retried). */
export type ReleaseOutcome = ReleaseResult & { cost: LeaseCost; retrying: boolean };

/** What the lease service does for a lease beyond its own call: retries, hunts, limits of kept machines. */
export type LeaseHost = {
  retryRelease(lease: Lease): void;
  hunt(lease: Lease, reason: string): void;
  watchKept(lease: Lease): void;
  stopWatching(lease: Lease): void;
};

export class ProvisioningFailedError extends MarketplaceError {
  constructor(
    readonly original: unknown,
    readonly release: ReleaseOutcome | null,
    readonly instanceId: number | null,
  ) {
    super(release ? `${errorMessage(original)}; ${release.message}` : errorMessage(original), original instanceof MarketplaceError ? original.code : 'instance_failed', null, null, { cause: original });
    this.name = 'ProvisioningFailedError';
  }
}

/** Bound on one destroy-and-verify. */
const RELEASE_TIMEOUT_MS = 120_000;

export class Lease {
  #keyed: KeyedClient | null;
  #releasing: Promise<ReleaseOutcome> | null = null;

  constructor(
    private readonly deps: LeaseDeps,
    private readonly host: LeaseHost,
    readonly id: string,
    keyed: KeyedClient | null,
  ) {
    this.#keyed = keyed;
  }

  get record(): LeaseRecord {
    const record = this.deps.ledger.get(this.id);
    if (!record) throw new Error(`lease ${this.id} is not in the ledger`);
    return record;
  }

  get keyed(): KeyedClient | null {
    return this.#keyed;
  }

  /** What it has cost so far (the ledger's formula). */
  cost(nowMs?: number): LeaseCost {
    const cost = this.deps.ledger.cost(this.id, nowMs);
    if (!cost) throw new Error(`lease ${this.id} is not in the ledger`);
    return cost;
  }

  /** Records a change (in memory at once; a failed write rejects). */
  async update(patch: Partial<LeaseRecord>): Promise<void> {
    await this.deps.ledger.write({ ...this.record, ...patch });
  }

  /** As update, but a failed write is logged, not thrown: a release must go on whatever the disk says. */
  async updateSoft(patch: Partial<LeaseRecord>): Promise<void> {
    await this.update(patch).catch((err: unknown) => this.deps.log.warn('could not write a lease to the data dir; the ledger in memory has it', { lease_id: this.id, error: errorMessage(err) }));
  }

  /**
   * Rents the cheapest fitting machine and waits until it runs and `ready` passes. The key is held
   * and the lease recorded (`renting`) before the create, so a crash during it is found by label at
   * the next start. A failure after the rent releases the machine (with its own time bound) and
   * rejects with ProvisioningFailedError saying how the release went.
   */
  async provision(spec: ProvisionSpec): Promise<LeasedMachine> {
    const keyed = this.#keyed;
    if (!keyed) throw new MarketplaceError('no marketplace key is configured (set VAST_API_KEY)', 'auth');
    await this.deps.heldKeys.hold(this.id, keyed.key);
    await this.update({ state: 'renting' });
    const answered = await rentCheapestFit({
      client: keyed.client,
      request: spec.request,
      model: spec.sizing,
      jobId: this.id,
      installId: this.deps.installId,
      signal: spec.signal,
      budget: spec.budget,
      ...(spec.onEvent ? { onEvent: spec.onEvent } : {}),
      ...(spec.ollamaModel ? { ollamaModel: spec.ollamaModel } : {}),
      ...(spec.server ? { server: spec.server } : {}),
      ...(spec.extraEnv ? { extraEnv: spec.extraEnv } : {}),
      lostRent: { lookups: this.deps.tuning?.quickLookups ?? 3, delayMs: this.deps.tuning?.quickLookupDelayMs ?? 2_000 },
      onLostRent: ({ reason }) => this.host.hunt(this, reason),
    }).catch(async (err: unknown) => {
      // Nothing rented (a lost create is being hunted: the lease stays open until the hunt ends).
      if (this.record.state === 'renting' && this.record.hunt_until === null) await this.#closeEmpty();
      throw err;
    });
    // Billing starts with the create's answer, on the ledger's clock (the one every cost is read on).
    const rented = { ...answered, rentedAt: new Date(this.deps.ledger.now()).toISOString() };
    try {
      return await this.#bringUp(spec, keyed, rented);
    } catch (err) {
      const release = this.record.instance_id !== null ? await this.release('provisioning failed', spec.onEvent) : null;
      throw new ProvisioningFailedError(err, release, answered.instanceId);
    }
  }

  /** From the rent's answer to a machine that runs and answers. */
  async #bringUp(spec: ProvisionSpec, keyed: KeyedClient, rented: RentedInstance): Promise<LeasedMachine> {
    const offer = rented.offer;
    await this.update({
      state: 'held',
      instance_id: rented.instanceId,
      offer: { id: offer.id, gpu_name: offer.gpu_name, num_gpus: offer.num_gpus, gpu_ram: offer.gpu_ram, inet_down_cost: rented.inetDownCost },
      dph_total: rented.dphTotal,
      disk_gb: rented.diskGb,
      rented_at: rented.rentedAt,
    });
    await spec.onRented?.(rented);
    const tokenFile = rented.access.authRequired ? await this.#keepToken(rented) : null;
    const tuning = this.deps.tuning ?? {};
    const running: RunningInstance = await waitForRunning({
      client: keyed.client,
      instanceId: rented.instanceId,
      authToken: rented.access.authRequired ? rented.authToken : null,
      https: rented.access.https,
      containerPort: rented.containerPort,
      signal: spec.signal,
      ...(spec.onEvent ? { onEvent: spec.onEvent } : {}),
      ...(tuning.waitTimeoutMs !== undefined ? { timeoutMs: tuning.waitTimeoutMs } : {}),
      ...(tuning.pollIntervalMs !== undefined ? { pollIntervalMs: tuning.pollIntervalMs, maxPollIntervalMs: tuning.pollIntervalMs * 4 } : {}),
      ...(tuning.bootWindowMs !== undefined ? { bootWindowMs: tuning.bootWindowMs } : {}),
    });
    const machine: LeasedMachine = {
      instanceId: rented.instanceId,
      server: rented.server,
      template: { hash_id: rented.template.hash_id, name: rented.template.name },
      backendUrl: running.backendUrl,
      headers: running.headers,
      offer,
      dphTotal: rented.dphTotal,
      rentedAt: rented.rentedAt,
      inetDownCost: rented.inetDownCost,
      tokenFile,
      keyed,
    };
    await spec.ready?.(machine, spec.signal);
    return machine;
  }

  /** The proxy token is a secret: never in a record, only in a 0600 file until the machine is gone. */
  async #keepToken(rented: RentedInstance): Promise<string> {
    const dir = path.join(this.deps.dataDir, 'secrets');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = tokenFileOf(this.deps.dataDir, rented.instanceId);
    await writeFile(file, `${rented.authToken}\n`, { mode: 0o600 });
    return file;
  }

  /** A model (or any download) the machine pulled: billed once at the host's $/GB, from now on part of its cost. */
  async addDownload(download: LeaseDownload): Promise<void> {
    await this.update({ downloads: [...this.record.downloads, download] });
  }

  /**
   * The owner lets the machine run on (an llm-instance that succeeded, a job asked to keep it): it
   * bills until released, answers to `limit` (or the default setting), and is not released when
   * its owner is interrupted.
   */
  async keep(limit: number | null): Promise<void> {
    await this.update({ state: 'kept', release_when_interrupted: false, max_cost_usd: limit });
    this.host.watchKept(this);
  }

  /**
   * Destroys the machine and confirms it is gone, with the key it was rented with (the key in use
   * takes over only if that one is refused and can see it). Confirmed: billing stopped, the held key
   * and the proxy token are removed. Not confirmed: the lease is `releasing`, keeps counting, and
   * the lease service tries again until it is. Never throws; concurrent calls share one attempt.
   */
  release(reason: string, onEvent?: MarketplaceEventSink): Promise<ReleaseOutcome> {
    this.#releasing ??= this.#release(reason, onEvent).finally(() => {
      this.#releasing = null;
    });
    return this.#releasing;
  }

  async #release(reason: string, onEvent?: MarketplaceEventSink): Promise<ReleaseOutcome> {
    const record = this.record;
    const instanceId = record.instance_id;
    if (instanceId === null && record.hunt_until !== null) {
      // A create whose answer was lost: the hunt for its label releases what it finds.
      const message = `the machine's create was never answered: benchdesk looks for its label ${record.label} until ${record.hunt_until} and releases what it finds`;
      return { released: false, verified: false, attempts: 0, message, cost: this.cost(), retrying: true };
    }
    if (record.state === 'released' || record.state === 'empty' || instanceId === null) {
      const message = instanceId === null ? 'nothing was rented' : `instance ${instanceId} was already released`;
      return { released: true, verified: true, attempts: 0, message, cost: this.cost(), retrying: false };
    }
    this.host.stopWatching(this);
    await this.updateSoft({ state: 'releasing' });
    const keys = this.#releaseKeys();
    const result: ReleaseResult = keys
      ? await releaseInstance({
          client: keys.primary,
          fallbackClients: keys.fallbacks,
          instanceId,
          signal: AbortSignal.timeout(RELEASE_TIMEOUT_MS),
          ...(onEvent ? { onEvent } : {}),
          ...(this.deps.tuning?.releaseRetryDelayMs !== undefined ? { retryDelayMs: this.deps.tuning.releaseRetryDelayMs } : {}),
        })
      : { released: false, verified: false, attempts: 0, message: `cannot release instance ${instanceId}: no marketplace key is configured` };
    if (result.verified) {
      await this.updateSoft({ state: 'released', released_at: new Date(this.deps.ledger.now()).toISOString(), release_error: null, hunt_until: null });
      await this.#forgetSecrets(instanceId);
      this.deps.log.info('released a marketplace instance', { lease_id: this.id, instance_id: instanceId, reason });
    } else {
      await this.updateSoft({ release_error: result.message });
      this.deps.log.error('could not confirm the release of a marketplace instance; it is retried', { lease_id: this.id, instance_id: instanceId, reason, message: result.message });
      this.host.retryRelease(this);
    }
    await this.deps.onReleaseSettled?.(this.record).catch((err: unknown) => this.deps.log.warn("could not record a release on its owner's record", { lease_id: this.id, error: errorMessage(err) }));
    return { ...result, cost: this.cost(), retrying: !result.verified };
  }

  /** The key it was rented with first; the key in use after it (it takes over only if the first is refused). */
  #releaseKeys(): { primary: VastApi; fallbacks: VastApi[] } | null {
    const current = this.deps.access.current();
    const primary = this.#keyed?.client ?? current?.client ?? null;
    if (!primary) return null;
    return { primary, fallbacks: current && current.client !== primary ? [current.client] : [] };
  }

  /** A machine of this lease that a lost create made, found by its label: now the lease's, to release. */
  async adopt(instance: MarketplaceInstance): Promise<void> {
    const startMs = instance.start_date != null ? instance.start_date * 1000 : this.deps.ledger.now();
    await this.updateSoft({
      state: 'held',
      instance_id: instance.id,
      dph_total: instance.dph_total ?? this.record.dph_total,
      rented_at: new Date(startMs).toISOString(),
      offer: this.record.offer ?? { id: instance.id, gpu_name: instance.gpu_name ?? null, num_gpus: instance.num_gpus ?? null, gpu_ram: instance.gpu_ram ?? null, inet_down_cost: null },
    });
  }

  /** A key that rents nothing more: kept by the lease service when it finds the key again (recovery). */
  setKey(keyed: KeyedClient | null): void {
    this.#keyed = keyed;
  }

  /** Nothing was rented (or the hunt found nothing): closed, its key forgotten. */
  async #closeEmpty(): Promise<void> {
    await this.updateSoft({ state: 'empty', hunt_until: null });
    await this.deps.heldKeys.drop(this.id).catch(() => undefined);
  }

  /** The hunt for a lost create ended without finding a machine. */
  async huntFoundNothing(): Promise<void> {
    if (this.record.instance_id === null) await this.#closeEmpty();
    else await this.updateSoft({ hunt_until: null });
  }

  async #forgetSecrets(instanceId: number): Promise<void> {
    // A destroyed machine's proxy token opens nothing, and the key it was rented with is no longer needed.
    await rm(tokenFileOf(this.deps.dataDir, instanceId), { force: true }).catch(() => undefined);
    await this.deps.heldKeys.drop(this.id).catch(() => undefined);
  }
}

export function tokenFileOf(dataDir: string, instanceId: number): string {
  return path.join(dataDir, 'secrets', `instance-${instanceId}.token`);
}
