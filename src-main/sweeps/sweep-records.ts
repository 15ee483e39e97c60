import type { EventLabels, EventStatus } from '../../shared/jobs';
import type { SweepMachine, SweepRecord } from '../../shared/sweeps';
import { machineUsd, roundUsd } from '../lease/cost';
import type { Logger } from '../engine/types';
import type { MachineEvent, SweepMachines } from './ports';
import type { SweepStore } from './sweep-store';

/**
 * A sweep's record as the engine changes it: one change at a time per sweep (machines run in
 * parallel and each rewrites the record), the machines' costs from the ledger (through the
 * machines port) at every write, and the events of the tenant feed. The spend the limit is
 * checked against is read from memory (spendNow), never from a write.
 */

export type SweepFeedEvent = { event: string; status: EventStatus; message: string; labels?: EventLabels };

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

export class SweepRecords {
  /** One record change at a time per sweep. */
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly store: SweepStore,
    private readonly machines: SweepMachines,
    readonly now: () => number,
    private readonly publishFn: (tenantId: string, sweepId: string, event: SweepFeedEvent) => void,
    private readonly log: Logger,
  ) {}

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  async read(sweepId: string): Promise<SweepRecord> {
    const sweep = await this.store.get(sweepId);
    if (!sweep) throw new Error(`sweep ${sweepId} vanished from the store`);
    return sweep;
  }

  /**
   * Read-modify-write of one sweep under its lock; the costs are brought up to date at every write.
   * The memory copy changes even when the disk refuses the write (the caller hears the failure).
   */
  async update(sweepId: string, change: (s: SweepRecord) => void): Promise<SweepRecord> {
    const previous = this.#locks.get(sweepId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const s = structuredClone(await this.read(sweepId));
        change(s);
        this.applyCosts(s);
        s.updated_at = this.iso();
        await this.store.put(s);
        return s;
      });
    this.#locks.set(sweepId, next);
    try {
      return await next;
    } finally {
      if (this.#locks.get(sweepId) === next) this.#locks.delete(sweepId);
    }
  }

  /** A machine still held costs what the ledger says (time and downloads so far); the sweep's spend is the sum, earlier machines included. */
  applyCosts(s: SweepRecord): void {
    const nowMs = this.now();
    for (const m of s.machines) {
      if (m.status === 'running' || m.status === 'renting' || (m.status === 'failed' && m.released === false)) m.cost_usd = this.#liveCost(m, nowMs);
    }
    s.spend_usd = roundUsd([...s.machines, ...s.earlier_machines].reduce((sum, m) => sum + m.cost_usd, 0));
  }

  /** The ledger's cost of a machine held now; before the ledger knows it, its rate × the time so far. */
  #liveCost(m: SweepMachine, nowMs: number): number {
    const fromLedger = this.machines.cost(m.machine_id);
    if (fromLedger !== null) return fromLedger;
    return m.dph_total !== undefined && m.rented_at ? machineUsd(m.dph_total, Date.parse(m.rented_at), nowMs) : m.cost_usd;
  }

  /** The spend now, from memory (the last record in memory and the ledger): what the limit is checked against. */
  spendNow(sweepId: string): number {
    const s = this.store.peek(sweepId);
    if (!s) return 0;
    const copy = structuredClone(s);
    this.applyCosts(copy);
    return copy.spend_usd;
  }

  /** A record for a reader: the running machines' costs as of now (not written). */
  withLiveCosts(s: SweepRecord): SweepRecord {
    // Held machines bill, and so does one whose release is not confirmed yet.
    if (!s.machines.some((m) => m.status === 'running' || m.status === 'renting' || (m.status === 'failed' && m.released === false))) return s;
    const copy = structuredClone(s);
    this.applyCosts(copy);
    return copy;
  }

  publishMachineEvent(sweepId: string, gpu: string, e: MachineEvent): void {
    const sweep = this.store.peek(sweepId);
    if (!sweep) return;
    // The machine's own cost meter is not the sweep's: the sweep reports its spend itself.
    if (e.event === 'cost.update') return;
    this.publish(sweep, { event: e.event, status: e.status, message: e.message ?? e.event, labels: { ...e.labels, gpu } });
  }

  publish(sweep: Pick<SweepRecord, 'tenant_id' | 'sweep_id'>, event: SweepFeedEvent): void {
    try {
      this.publishFn(sweep.tenant_id, sweep.sweep_id, { ...event, labels: { sweep_id: sweep.sweep_id, ...event.labels } });
    } catch (err) {
      this.log.warn('could not publish a sweep event', { sweep_id: sweep.sweep_id, event: event.event, error: errorMessage(err) });
    }
  }
}
