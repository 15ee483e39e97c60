import type { CatalogEntry } from '../../shared/models';
import type { EventLabels, EventStatus } from '../../shared/jobs';
import type { SweepRequest } from '../../shared/sweeps';
import type { MarketplaceOffer } from '../marketplace/vast-wire';

/**
 * What the sweep engine stands on, as small interfaces: the job submission (the `suite` and
 * `serving-benchmark` kinds run as ordinary jobs) and the machines (rent, pull, release, cost:
 * the real ones are leases, their costs the ledger's). The composition root wires the real ones;
 * unit tests use in-test ones.
 */

export const SWEEP_JOB_KINDS = ['suite', 'serving-benchmark'] as const;
export type SweepJobKind = (typeof SWEEP_JOB_KINDS)[number];

export type SweepJobEnd = {
  status: 'succeeded' | 'failed' | 'cancelled';
  result: unknown;
  error: string | null;
  error_code: string | null;
};

export interface SweepJobRunner {
  /** Whether this server runs jobs of this kind. */
  supports(kind: SweepJobKind): boolean;
  /**
   * Submits through the engine's normal job submission, on behalf of the sweep's tenant. `tag` (the
   * sweep, cell and attempt) is the idempotency key: a retry after a lost answer gets the same job.
   */
  submit(tenantId: string, kind: SweepJobKind, request: Record<string, unknown>, tag: string): Promise<string>;
  /** Resolves once the job has ended; rejects when `signal` aborts first. */
  wait(jobId: string, signal: AbortSignal): Promise<SweepJobEnd>;
  /** The job submitted with this tag (its idempotency key), if any: after a crash, a job whose id the sweep never recorded. */
  findTagged(tenantId: string, kind: SweepJobKind, tag: string): Promise<string | undefined>;
  /** Cancels the job (nothing happens when it has ended). */
  cancel(tenantId: string, jobId: string): Promise<void>;
}

/** A machine the sweep rented and can reach. */
export type RentedMachine = {
  /** The id in its label (the sweep's machine record). */
  machineId: string;
  instanceId: number;
  dphTotal: number;
  rentedAt: string;
  offerId: number;
  numGpus: number;
  gpuRamMb: number;
  /** The machine's Ollama URL as jobs are given it (its proxy token as Basic userinfo when it needs one). */
  backendUrl: string;
};

export type MachineEvent = { event: string; status: EventStatus; message: string | null; duration_ms?: number | null; labels?: EventLabels };

export type ReleaseOutcome = {
  released: boolean;
  verified: boolean;
  message: string;
  /** What the machine cost in the end (the ledger's figure), or so far while its release is retried. */
  costUsd: number;
};

/** A model put on a machine: what its download cost (null: the host does not say). */
export type Prepared = { model: string; downloadGb: number; downloadUsd: number | null };

export interface SweepMachines {
  /** Whether a marketplace key is configured (a sweep needs one to rent). */
  ready(): boolean;
  /** The offers of one GPU name, for planning (any memory size), among the hosts that can run the template, priced at the disk the sweep rents. */
  offers(gpu: string, request: SweepRequest, signal: AbortSignal): Promise<MarketplaceOffer[]>;
  catalogEntry(model: string): CatalogEntry | undefined;
  /**
   * Rents the cheapest offer of `gpu` that holds `sizing` and waits until its Ollama answers.
   * `onRented` runs as soon as the instance exists (the record keeps its id for crash recovery).
   * A failure after the rent releases the machine before it rejects.
   */
  rent(
    spec: { sweepId: string; tenantId: string; machineId: string; gpu: string; sizing: CatalogEntry; request: SweepRequest },
    hooks: { onRented(m: { instanceId: number; dphTotal: number; rentedAt: string }): Promise<void>; onEvent(e: MachineEvent): void },
    signal: AbortSignal,
  ): Promise<RentedMachine>;
  /** Puts the model on the machine (pull unless it is there); its download joins the machine's cost. */
  prepare(machine: RentedMachine, model: string, onEvent: (e: MachineEvent) => void, signal: AbortSignal): Promise<Prepared>;
  /**
   * Destroys and verifies; never throws. `instanceId` undefined: the machine is looked for by its
   * label (a crash during the rent). An unconfirmed release is retried (by the lease) until it is.
   */
  release(machineId: string, instanceId: number | undefined, onEvent: (e: MachineEvent) => void): Promise<ReleaseOutcome>;
  /** What a machine has cost so far (the ledger's: machine time and downloads); null when it is not known. */
  cost(machineId: string): number | null;
}
