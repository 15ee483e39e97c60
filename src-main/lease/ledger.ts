import { leaseCost, type LeaseCost } from './cost';
import type { LeaseBookLike } from './lease-book';
import { isOpen, type LeaseRecord } from './lease-record';

/**
 * The ledger: every lease this data dir ever opened, in memory (loaded from the book at start-up)
 * and written through to it. It is the one place costs are read from: a job's cost, a sweep's
 * spend, the Overview's spend, the machines list and `cost.update` all ask it, with the one
 * formula of cost.ts. A change is in memory (and heard by listeners) before the write starts, so a
 * write the disk refuses never hides a cost.
 */

export type LedgerListener = (lease: LeaseRecord) => void;

/** One lease's part of a tenant's spend: its cost now, when it counts (released, or now while it bills), and what kind of work held it. */
export type SpendItem = { lease_id: string; kind: string; cost_usd: number; at: Date; running_dph: number };

export class Ledger {
  readonly #leases = new Map<string, LeaseRecord>();
  readonly #listeners = new Set<LedgerListener>();
  /** Leases whose last change the book refused (a full disk): written again with the next write and at flush. */
  readonly #unwritten = new Map<string, LeaseRecord>();
  #loaded = false;

  constructor(
    private readonly book: LeaseBookLike,
    readonly now: () => number = Date.now,
  ) {}

  /** Reads the book once (start-up). */
  async load(): Promise<void> {
    if (this.#loaded) return;
    for (const record of await this.book.loadAll()) this.#leases.set(record.lease_id, record);
    this.#loaded = true;
  }

  get(leaseId: string): LeaseRecord | undefined {
    return this.#leases.get(leaseId);
  }

  all(): LeaseRecord[] {
    return [...this.#leases.values()];
  }

  /** Leases not settled yet (billing, or possibly billing). */
  open(): LeaseRecord[] {
    return this.all().filter((l) => isOpen(l.state));
  }

  /** The lease that holds (or held) this instance. */
  byInstance(instanceId: number): LeaseRecord | undefined {
    for (const lease of this.#leases.values()) if (lease.instance_id === instanceId) return lease;
    return undefined;
  }

  /** Whether a job (or sweep machine) id names a lease: its costs are the ledger's, not its record's. */
  has(leaseId: string): boolean {
    return this.#leases.has(leaseId);
  }

  /** A lease's cost now (or at `nowMs`). */
  cost(leaseId: string, nowMs: number = this.now()): LeaseCost | null {
    const lease = this.#leases.get(leaseId);
    return lease ? leaseCost(lease, nowMs) : null;
  }

  /** The machines of a sweep, and what they cost together now. */
  sweepCost(sweepId: string, nowMs: number = this.now()): number {
    let total = 0;
    for (const lease of this.#leases.values()) if (lease.owner.kind === 'sweep' && lease.owner.sweep_id === sweepId) total += leaseCost(lease, nowMs).cost_usd;
    return Math.round(total * 1_000_000) / 1_000_000;
  }

  /** Every lease of a tenant as a spend item: its cost now, counted on the day it was released (today while it bills). */
  spendItems(tenantId: string, now: Date): SpendItem[] {
    const items: SpendItem[] = [];
    for (const lease of this.#leases.values()) {
      if (lease.tenant_id !== tenantId || lease.rented_at === null) continue;
      const cost = leaseCost(lease, now.getTime());
      const at = lease.released_at ? new Date(lease.released_at) : now;
      const kind = lease.owner.kind === 'job' ? lease.owner.job_kind : 'sweep';
      items.push({ lease_id: lease.lease_id, kind, cost_usd: cost.cost_usd, at, running_dph: cost.running ? cost.dph_total : 0 });
    }
    return items;
  }

  /** Hears every change (an open, a rent, a download, a release), synchronously and before it is written. */
  onChange(listener: LedgerListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records a change: in memory and to the listeners at once, then to the book. A failed write
   * rejects (the caller decides: a rent stops, a release goes on) and leaves the memory copy as is.
   */
  async write(record: LeaseRecord): Promise<void> {
    const stamped = { ...record, updated_at: new Date(this.now()).toISOString() };
    this.#leases.set(stamped.lease_id, stamped);
    for (const listener of this.#listeners) {
      try {
        listener(stamped);
      } catch {
        // A listener's failure is its own.
      }
    }
    await this.#persistUnwritten();
    try {
      await this.book.put(stamped);
      this.#unwritten.delete(stamped.lease_id);
    } catch (err) {
      this.#unwritten.set(stamped.lease_id, stamped);
      throw err;
    }
  }

  /** Writes again what the book refused before (best effort: still refused, it stays pending). */
  async #persistUnwritten(): Promise<void> {
    for (const [id, record] of [...this.#unwritten]) {
      if (this.#leases.get(id) !== record) continue;
      try {
        await this.book.put(record);
        if (this.#unwritten.get(id) === record) this.#unwritten.delete(id);
      } catch {
        return;
      }
    }
  }

  /** Every change written that can be (what a full disk refused is tried again), then the book's writes awaited. */
  async flush(): Promise<void> {
    await this.#persistUnwritten();
    await this.book.flush();
  }
}
