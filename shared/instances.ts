import { z } from 'zod';
import { JobKindSchema, JobStatusSchema, Rfc3339Schema, wholeNumberParam } from './jobs';

/**
 * Rented marketplace machines as a resource (GET /v1/marketplace/instances): every instance on the
 * account whose label starts with `benchdesk:`, with its job and why it is still up.
 */

/**
 * `active`: its job is queued or running. `kept`: left up on purpose (an llm-instance that
 * succeeded, or a benchmark with marketplace_stop_instance:false). `orphaned`: ours (our install id,
 * or named by one of our job records) but its job ended otherwise or is unknown, and it is still
 * billing. `foreign`: labelled by another benchdesk install (another data dir): never released
 * automatically, and released by hand only with `force: true`.
 */
export const INSTANCE_CLASSIFICATIONS = ['active', 'kept', 'orphaned', 'foreign'] as const;
export const InstanceClassificationSchema = z.enum(INSTANCE_CLASSIFICATIONS);
export type InstanceClassification = z.infer<typeof InstanceClassificationSchema>;

export const InstanceJobSchema = z.object({
  job_id: z.string(),
  kind: JobKindSchema,
  status: JobStatusSchema,
});
export type InstanceJob = z.infer<typeof InstanceJobSchema>;

export const MarketplaceInstanceEntrySchema = z.object({
  instance_id: z.number().int(),
  label: z.string(),
  /** null: the label names a job this data dir does not know (another install, or a lost record). */
  job: InstanceJobSchema.nullable(),
  gpu_name: z.string().nullable(),
  num_gpus: z.number().int().nullable(),
  /** $/hour as the marketplace reports it for this instance. */
  dph_total: z.number().nullable().describe('$/hour'),
  /** When it was rented (RFC 3339), from the marketplace's start date or the job's record. */
  rented_at: Rfc3339Schema.nullable().describe('when it was rented'),
  /** dph_total × hours since rented_at, plus download_usd, rounded to 1/1,000,000 $ (the ledger's figure when it knows the machine). */
  cost_usd_so_far: z.number().nullable().describe('dph_total × hours since rented_at, plus download_usd ($)'),
  /** What its job's model downloads cost on it ($), billed once; null when not known (another install's machine, or no download recorded). */
  download_usd: z.number().nonnegative().nullable().optional().describe("what its job's model downloads cost on it ($), included in cost_usd_so_far"),
  /** The machine's state as the marketplace reports it (null while it is being scheduled); `release pending` for one the ledger is still releasing that no listing shows. */
  state: z.string().nullable().describe('the state the marketplace reports (loading, running, exited…); `release pending` while benchdesk retries a release no listing confirms'),
  classification: InstanceClassificationSchema.describe(
    'active: its job is queued or running; kept: left up on purpose; orphaned: ours, its job ended otherwise or is unknown; foreign: rented by another benchdesk install',
  ),
  /** The sweep whose machine this is (a sweep rents one machine per GPU), and the model it runs now; absent for a job's machine. */
  sweep: z
    .object({ sweep_id: z.string(), name: z.string(), gpu: z.string(), model: z.string().nullable().describe('the model it runs now'), status: z.string() })
    .nullable()
    .optional()
    .describe('the sweep that rented this machine, and the model it runs now'),
  /** The last release of this machine that failed, and why (e.g. the key was refused); null otherwise. */
  release_error: z.string().nullable().optional().describe('why the last release of this machine failed, if it did'),
});
export type MarketplaceInstanceEntry = z.infer<typeof MarketplaceInstanceEntrySchema>;

export const MarketplaceInstanceListSchema = z.object({
  instances: z.array(MarketplaceInstanceEntrySchema),
  /** Why the list is empty when it cannot be read (no marketplace key…); null otherwise. */
  note: z.string().nullable().describe('why the list is empty when it cannot be read (no marketplace key)'),
});
export type MarketplaceInstanceList = z.infer<typeof MarketplaceInstanceListSchema>;

/** Query strings carry text: `true/1/yes/on` and `false/0/no/off` are read as booleans. */
const BooleanishSchema = z.union([
  z.boolean(),
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((s) => ['true', '1', 'yes', 'on', 'false', '0', 'no', 'off'].includes(s), { message: 'expected true or false' })
    .transform((s) => ['true', '1', 'yes', 'on'].includes(s)),
]);

export const ListInstancesQuerySchema = z.object({ orphaned: BooleanishSchema.optional().describe('true: only orphaned machines') }).strict();
export type ListInstancesQuery = z.infer<typeof ListInstancesQuerySchema>;

export const ReleaseInstanceInputSchema = z
  .object({
    instance_id: wholeNumberParam(1, Number.MAX_SAFE_INTEGER),
    /** Required to release a `foreign` machine (one rented by another benchdesk install). */
    force: z.boolean().optional(),
  })
  .strict();
export type ReleaseInstanceInput = z.infer<typeof ReleaseInstanceInputSchema>;

/** The HTTP body of a release (the id is in the path): `{}`, or `{"force": true}` for another install's machine. */
export const ReleaseInstanceBodySchema = ReleaseInstanceInputSchema.pick({ force: true }).describe('optional; {"force": true} releases a machine of another benchdesk install');
export type ReleaseInstanceBody = z.infer<typeof ReleaseInstanceBodySchema>;

export const ReleaseInstanceResponseSchema = z.object({
  instance_id: z.number().int(),
  /** The marketplace accepted the destroy (or it was already gone). */
  released: z.boolean(),
  /** A read-back confirmed it is gone. */
  verified: z.boolean().describe('a read-back confirmed it is gone'),
  message: z.string(),
  job_id: z.string().nullable(),
  /** What the machine cost in the end: machine time up to its release plus its downloads (the ledger's figure, $). */
  cost_usd: z.number().nonnegative().nullable().optional().describe('what the machine cost in the end: machine time up to its release plus its downloads ($)'),
  /** Its downloads' part of cost_usd ($). */
  download_usd: z.number().nonnegative().nullable().optional().describe('its downloads’ part of cost_usd ($)'),
});
export type ReleaseInstanceResponse = z.infer<typeof ReleaseInstanceResponseSchema>;

/** The orphan sweep's last result, shown by /healthz. */
export const MarketplaceHealthSchema = z.object({
  orphaned_instances: z.number().int().nonnegative(),
  last_sweep_at: Rfc3339Schema.nullable(),
});
export type MarketplaceHealth = z.infer<typeof MarketplaceHealthSchema>;
