import { z } from 'zod';

/**
 * One rented machine's lease as the ledger keeps it (`<dataDir>/leases/<lease_id>.json`): who holds
 * it, its label and instance, its price, when it started and stopped billing, what its downloads
 * cost, and where it is in its life. Written before the create (so a crash during the rent is
 * found by its label at the next start) and at each change of state, never on a timer.
 */

/** The owner's id is in the machine's label: `benchdesk:<install_id>:<lease_id>`. */
export const LeaseOwnerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('job'), job_id: z.string().min(1), job_kind: z.string().min(1) }),
  z.object({ kind: z.literal('sweep'), sweep_id: z.string().min(1), machine_id: z.string().min(1), gpu: z.string() }),
]);
export type LeaseOwner = z.infer<typeof LeaseOwnerSchema>;

/**
 * `renting`: a create is about to be or being made (the machine may exist before its id is known).
 * `held`: its owner uses the machine. `kept`: left running on purpose; it bills until released.
 * `releasing`: a release was asked and is not confirmed yet (it is retried until it is).
 * `released`: confirmed gone; billing stopped at `released_at`. `empty`: nothing was rented.
 */
export const LEASE_STATES = ['renting', 'held', 'kept', 'releasing', 'released', 'empty'] as const;
export const LeaseStateSchema = z.enum(LEASE_STATES);
export type LeaseState = z.infer<typeof LeaseStateSchema>;

export const LeaseDownloadSchema = z.object({
  model: z.string(),
  gb: z.number().nonnegative(),
  /** null: the host does not say what downloads cost. */
  usd: z.number().nonnegative().nullable(),
  source: z.enum(['pull', 'installed', 'catalog']),
});
export type LeaseDownload = z.infer<typeof LeaseDownloadSchema>;

export const LeaseOfferSchema = z.object({
  id: z.number().int(),
  gpu_name: z.string().nullable(),
  num_gpus: z.number().int().nullable(),
  gpu_ram: z.number().nullable(),
  /** The host's download price ($/GB); null when it does not say. */
  inet_down_cost: z.number().nullable(),
});

export const LeaseRecordSchema = z.object({
  lease_id: z.string().min(1),
  tenant_id: z.string().min(1),
  owner: LeaseOwnerSchema,
  label: z.string(),
  state: LeaseStateSchema,
  instance_id: z.number().int().nullable(),
  offer: LeaseOfferSchema.nullable(),
  /** $/h as billed: the GPU plus the storage of the disk it was rented with. */
  dph_total: z.number().nonnegative().nullable(),
  disk_gb: z.number().nonnegative().nullable(),
  /** Billing started (RFC 3339): when the create answered, or the marketplace's start date of a machine found later. */
  rented_at: z.string().nullable(),
  /** Billing stopped: when the destroy that was confirmed was accepted. */
  released_at: z.string().nullable(),
  downloads: z.array(LeaseDownloadSchema),
  /** The lease's own spend limit ($; null: none). A sweep's limit is over all its machines and kept by the sweep. */
  max_cost_usd: z.number().nonnegative().nullable(),
  /** Release it when its owner is interrupted (a crash, a shutdown); false for a machine kept on request. */
  release_when_interrupted: z.boolean(),
  /** A create whose answer was lost: the label is looked up until then (RFC 3339). */
  hunt_until: z.string().nullable(),
  /** Why the last release failed (it is retried); null otherwise. */
  release_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LeaseRecord = z.infer<typeof LeaseRecordSchema>;

/** Still to be settled: billing (or possibly billing) and not confirmed gone. */
export function isOpen(state: LeaseState): boolean {
  return state !== 'released' && state !== 'empty';
}

/** The job or sweep machine id a lease is named after (its label's last segment). */
export function ownerId(owner: LeaseOwner): string {
  return owner.kind === 'job' ? owner.job_id : owner.machine_id;
}
