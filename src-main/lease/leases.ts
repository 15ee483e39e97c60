import type { EventInput } from '../events/timed';
import type { KeyedClient } from '../marketplace/access';
import { errorMessage, type MarketplaceEvent } from '../marketplace/events';
import { jobLabel } from '../marketplace/labels';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import { DEFAULT_HUNT_MS, huntLostRent } from './hunt';
import { Lease, type LeaseHost, type ReleaseOutcome } from './lease';
import type { LeaseDeps } from './lease-deps';
import { isOpen, ownerId, type LeaseOwner, type LeaseRecord } from './lease-record';
import { SpendGuard } from './spend-guard';

/**
 * The lease service: every lease of this process, and what outlives the call that made it. A
 * release that did not confirm is tried again (15 s, doubling, at most every 5 min) until it is;
 * a lost create is hunted by its label; a kept machine answers to its spend limit (checked at
 * least every 5 s); and at start-up every lease left open by a crash is settled: looked for,
 * released, or (kept on request) watched.
 */

export type OpenLease = {
  owner: LeaseOwner;
  tenantId: string;
  /** The lease's own limit ($; null: none). */
  maxCostUsd?: number | null;
  /** Release it when its owner is interrupted (default true). */
  releaseWhenInterrupted?: boolean;
};

const DEFAULT_RELEASE_RETRY_MS = 15_000;
const DEFAULT_MAX_RELEASE_RETRY_MS = 5 * 60_000;

export class Leases implements LeaseHost {
  readonly #leases = new Map<string, Lease>();
  readonly #retries = new Map<string, { timer: NodeJS.Timeout; attempt: number }>();
  readonly #hunts = new Map<string, Promise<void>>();
  readonly #guards = new Map<string, SpendGuard>();
  readonly #closing = new AbortController();
  /** Leases settled at this start (by their owner's recovery or the sweep of the rest): once each. */
  readonly #recovered = new Set<string>();

  constructor(readonly deps: LeaseDeps) {}

  get ledger() {
    return this.deps.ledger;
  }

  /**
   * A new lease for an owner (a job, a sweep's GPU), with the key in use: not rented yet. An owner
   * id whose earlier lease rented nothing gets a fresh one; one whose machine is still open is an error.
   */
  async open(spec: OpenLease): Promise<Lease> {
    const id = ownerId(spec.owner);
    const existing = this.deps.ledger.get(id);
    if (existing && existing.state !== 'empty') throw new Error(`${id} already holds a lease (${existing.state})`);
    const at = new Date(this.deps.ledger.now()).toISOString();
    const record: LeaseRecord = {
      lease_id: id,
      tenant_id: spec.tenantId,
      owner: spec.owner,
      label: jobLabel(this.deps.installId, id),
      state: 'renting',
      instance_id: null,
      offer: null,
      dph_total: null,
      disk_gb: null,
      rented_at: null,
      released_at: null,
      downloads: [],
      max_cost_usd: spec.maxCostUsd ?? null,
      release_when_interrupted: spec.releaseWhenInterrupted ?? true,
      hunt_until: null,
      release_error: null,
      created_at: at,
      updated_at: at,
    };
    // Only in memory until the owner provisions (which writes it before the create).
    await this.deps.ledger.write(record).catch((err: unknown) => this.deps.log.warn('could not write a new lease yet', { lease_id: id, error: errorMessage(err) }));
    const lease = new Lease(this.deps, this, id, this.deps.access.current());
    this.#leases.set(id, lease);
    return lease;
  }

  /** The lease of an owner id (a job id, a sweep machine id), in this process or from the ledger. */
  async get(leaseId: string): Promise<Lease | undefined> {
    const known = this.#leases.get(leaseId);
    if (known) return known;
    if (!this.deps.ledger.get(leaseId)) return undefined;
    const lease = new Lease(this.deps, this, leaseId, await this.#heldKey(leaseId));
    this.#leases.set(leaseId, lease);
    return lease;
  }

  /** The lease that holds an instance, if the ledger knows it. */
  async byInstance(instanceId: number): Promise<Lease | undefined> {
    const record = this.deps.ledger.byInstance(instanceId);
    return record ? this.get(record.lease_id) : undefined;
  }

  /**
   * A benchdesk machine the ledger does not know (an orphan from before the ledger, or another
   * lease's stray): taken into the ledger as held by its label's owner, so its release and what it
   * cost are recorded like any other.
   */
  async adopt(instance: MarketplaceInstance, spec: OpenLease & { leaseId?: string; keyed?: KeyedClient | null }): Promise<Lease> {
    const id = spec.leaseId ?? ownerId(spec.owner);
    const existing = await this.get(id);
    if (existing && isOpen(existing.record.state) && existing.record.instance_id === instance.id) return existing;
    if (existing && existing.record.instance_id !== null && existing.record.instance_id !== instance.id) return this.adopt(instance, { ...spec, leaseId: `${id}-i${instance.id}` });
    const lease = existing ?? (await this.open({ ...spec, owner: spec.owner }));
    if (spec.keyed) lease.setKey(spec.keyed);
    await lease.adopt(instance);
    return lease;
  }

  // ---- what outlives a call ------------------------------------------------------------------

  retryRelease(lease: Lease): void {
    if (this.#closing.signal.aborted) return;
    const previous = this.#retries.get(lease.id);
    if (previous) clearTimeout(previous.timer);
    const attempt = (previous?.attempt ?? 0) + 1;
    const first = this.deps.tuning?.releaseRetryMs ?? DEFAULT_RELEASE_RETRY_MS;
    const wait = Math.min(this.deps.tuning?.maxReleaseRetryMs ?? DEFAULT_MAX_RELEASE_RETRY_MS, first * 2 ** (attempt - 1));
    const timer = setTimeout(() => {
      void lease.release('retry', this.#sink(lease)).then((outcome) => {
        if (outcome.verified) this.#retries.delete(lease.id);
      });
    }, wait);
    timer.unref();
    this.#retries.set(lease.id, { timer, attempt });
  }

  hunt(lease: Lease, reason: string): void {
    const until = new Date(Date.now() + (this.deps.tuning?.huntMs ?? DEFAULT_HUNT_MS)).toISOString();
    const current = lease.record.hunt_until;
    if (!current || current < until) void lease.updateSoft({ hunt_until: until });
    this.deps.log.warn('a create was not answered: looking for its machine by label', { lease_id: lease.id, label: lease.record.label, until, reason });
    if (this.#hunts.has(lease.id)) return;
    const run = huntLostRent(this.deps, lease, (l, instance) => this.#releaseFound(l, instance), this.#closing.signal)
      .then(async () => {
        if (!this.#closing.signal.aborted && lease.record.state === 'renting') await lease.huntFoundNothing();
        else if (!this.#closing.signal.aborted) await lease.updateSoft({ hunt_until: null });
      })
      .catch((err: unknown) => this.deps.log.error('the hunt for a lost rent failed', { lease_id: lease.id, error: errorMessage(err) }))
      .finally(() => this.#hunts.delete(lease.id));
    this.#hunts.set(lease.id, run);
  }

  watchKept(lease: Lease): void {
    this.stopWatching(lease);
    // Read at every check: the default setting may change while the machine is kept.
    const limitNow = () => lease.record.max_cost_usd ?? this.deps.keptLimitDefault?.() ?? null;
    const guard = new SpendGuard({
      limit: limitNow,
      cost: () => lease.cost().cost_usd,
      ...(this.deps.tuning?.spendCheckMs !== undefined ? { intervalMs: this.deps.tuning.spendCheckMs } : {}),
      onExceeded: (cost, limit) => {
        const message = `instance ${lease.record.instance_id ?? '?'} (kept) has cost $${cost.toFixed(4)} (machine time and downloads), reaching its spend limit of $${limit}: releasing it`;
        this.#notify(lease.record, { event: 'cost.limit_reached', status: 'info', message, labels: { cost_usd: cost, max_cost_usd: limit, instance_id: lease.record.instance_id } });
        void lease.release('budget_exceeded', this.#sink(lease));
      },
      onError: (err) => this.deps.log.error('the spend check of a kept machine failed', { lease_id: lease.id, error: errorMessage(err) }),
    });
    this.#guards.set(lease.id, guard.start());
  }

  stopWatching(lease: Lease): void {
    this.#guards.get(lease.id)?.stop();
    this.#guards.delete(lease.id);
  }

  /** A machine the hunt found: the lease's own when it has none yet, else a stray of the same label. */
  async #releaseFound(lease: Lease, instance: MarketplaceInstance): Promise<void> {
    const target = lease.record.instance_id === null ? lease : await this.adopt(instance, { owner: lease.record.owner, tenantId: lease.record.tenant_id, leaseId: `${lease.id}-i${instance.id}`, keyed: lease.keyed });
    if (target === lease) await lease.adopt(instance);
    await target.release('lost rent', this.#sink(target));
  }

  // ---- start-up ------------------------------------------------------------------------------

  /** Loads the ledger. Call before anything reads it. */
  async load(): Promise<void> {
    await this.deps.ledger.load();
  }

  /**
   * Settles one lease left open by a crash (a job's recovery calls it with the job's event sink):
   * a lost create is hunted; a machine its owner no longer uses is released (or, kept on request,
   * watched); an unconfirmed release is tried again. Returns what happened, or null when the lease
   * was already settled.
   */
  async recoverLease(leaseId: string, onEvent?: (e: MarketplaceEvent) => void): Promise<ReleaseOutcome | 'kept' | 'hunting' | null> {
    const lease = await this.get(leaseId);
    if (!lease || !isOpen(lease.record.state) || this.#recovered.has(leaseId)) return null;
    this.#recovered.add(leaseId);
    const record = lease.record;
    if (record.instance_id === null) {
      this.hunt(lease, 'the server stopped while the machine was being rented');
      return 'hunting';
    }
    if (record.state === 'kept' || (record.state === 'held' && !record.release_when_interrupted)) {
      if (record.state !== 'kept') await lease.updateSoft({ state: 'kept' });
      this.watchKept(lease);
      return 'kept';
    }
    return lease.release('interrupted', onEvent ?? this.#sink(lease));
  }

  /** Start-up: every lease still open after the owners' own recovery is settled. */
  async recover(): Promise<{ hunting: number; released: number; kept: number }> {
    const counts = { hunting: 0, released: 0, kept: 0 };
    for (const record of this.deps.ledger.open()) {
      const outcome = await this.recoverLease(record.lease_id).catch((err: unknown) => {
        this.deps.log.error('could not settle a lease left open', { lease_id: record.lease_id, error: errorMessage(err) });
        return null;
      });
      if (outcome === 'hunting') counts.hunting++;
      else if (outcome === 'kept') counts.kept++;
      else if (outcome) counts.released++;
    }
    if (counts.hunting + counts.released + counts.kept > 0) this.deps.log.info('settled the leases left open', counts);
    return counts;
  }

  /** Stops the retries, hunts and guards (they resume at the next start from the ledger) and flushes the ledger. */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const { timer } of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
    for (const guard of this.#guards.values()) guard.stop();
    this.#guards.clear();
    await Promise.all(this.#hunts.values());
    await this.deps.ledger.flush().catch(() => undefined);
  }

  /** The key a lease rented with (held in the data dir), else the key in use. */
  keyFor(leaseId: string): Promise<KeyedClient | null> {
    return this.#heldKey(leaseId);
  }

  async #heldKey(leaseId: string): Promise<KeyedClient | null> {
    const key = await this.deps.heldKeys.keyOf(leaseId);
    const client = key ? this.deps.access.clientFor(key) : null;
    return key && client ? { key, client } : this.deps.access.current();
  }

  #notify(record: LeaseRecord, event: EventInput): void {
    try {
      this.deps.notify?.(record, event);
    } catch {
      // Reporting is best effort.
    }
  }

  /** The owner's event sink for a release nobody awaits (a retry, a kept machine's limit). */
  #sink(lease: Lease): (e: MarketplaceEvent) => void {
    return (e) => this.#notify(lease.record, e);
  }
}
