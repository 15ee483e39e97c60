import { z } from 'zod';

/**
 * Wire shapes of the Vast.ai REST API, as our client (./vast-client.ts) reads them.
 * Fields the product relies on are required and typed; everything else is optional and, where a
 * surprise value must not sink a whole response, falls back to null (`.catch(null)`). Strings are
 * trimmed because Vast sends values such as `public_ipaddr: "1.2.3.4\n"`. Unknown keys are dropped.
 */

/** A trimmed string. */
const Str = z.string().trim();
/** Optional, nullable, and null when the value has an unexpected type. */
const optStr = Str.nullable().optional().catch(null);
const optNum = z.number().nullable().optional().catch(null);
const optBool = z.boolean().nullable().optional().catch(null);

/** One rentable machine from `POST /bundles/`. */
export const MarketplaceOfferSchema = z.object({
  id: z.number().int(),
  ask_contract_id: optNum,
  machine_id: optNum,
  host_id: optNum,
  gpu_name: Str,
  num_gpus: z.number().int().nonnegative(),
  /** Per-GPU memory in MB. */
  gpu_ram: z.number().nonnegative(),
  /** All GPUs together in MB; older rows may omit it (then gpu_ram × num_gpus). */
  gpu_total_ram: optNum,
  dph_base: optNum,
  /** $/hour including storage at the `allocated_storage` of the query. */
  dph_total: z.number().nonnegative(),
  storage_cost: optNum,
  storage_total_cost: optNum,
  inet_down_cost: optNum,
  inet_up_cost: optNum,
  reliability: optNum,
  reliability2: optNum,
  verification: optStr,
  rentable: optBool,
  rented: optBool,
  geolocation: optStr,
  disk_space: optNum,
  cuda_max_good: optNum,
  /** Directly reachable ports: without one, `-p 11434` never maps (reference §A.10). */
  direct_port_count: optNum,
  /** The CLI filters `external: false` by default; some offers carry null. */
  external: optBool,
  dlperf: optNum,
});
export type MarketplaceOffer = z.infer<typeof MarketplaceOfferSchema>;

/**
 * `POST /bundles/`: each offer is read on its own (MarketplaceOfferSchema), so one malformed offer is
 * skipped with a log line instead of failing the whole search.
 */
export const OffersResponseSchema = z.object({ offers: z.array(z.unknown()) });
export type OffersResponse = z.infer<typeof OffersResponseSchema>;

/**
 * Any 200 of `PUT /asks/{id}/`: a success with `new_contract` (the instance id), or a refusal `{success: false, error,
 * msg}` (credit, an offer no longer there...) that Vast answers with a 200 too.
 */
export const RentAnswerSchema = z.object({
  success: z.boolean().optional(),
  new_contract: z.number().int().nullable().optional(),
  error: optStr,
  msg: optStr,
});

/** Docker-style port binding; `HostPort` is a string on the wire (a number is tolerated). */
export const PortBindingSchema = z.object({
  HostIp: optStr,
  HostPort: z.union([z.string(), z.number()]).transform((v) => String(v).trim()),
});
export type PortBinding = z.infer<typeof PortBindingSchema>;

/**
 * `ports` is only present on running instances: missing, null or `{}` while loading, and one
 * OpenAPI file even types it as an array. Anything that is not a map reads as null.
 */
const PortsSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null),
  z.record(z.string(), z.array(PortBindingSchema).nullable().catch(null)).nullable(),
);

export const MarketplaceInstanceSchema = z.object({
  id: z.number().int(),
  machine_id: optNum,
  host_id: optNum,
  /** null (scheduling) → created → loading → running; or exited/unknown/offline/destroyed. */
  actual_status: optStr,
  intended_status: optStr,
  cur_state: optStr,
  next_state: optStr,
  status_msg: optStr,
  label: optStr,
  template_id: optNum,
  template_hash_id: optStr,
  image_uuid: optStr,
  public_ipaddr: optStr,
  ports: PortsSchema.optional(),
  /** `[[key, value], ...]`, not an object. */
  extra_env: z.array(z.tuple([z.string(), z.string()])).nullable().optional().catch(null),
  gpu_name: optStr,
  num_gpus: optNum,
  gpu_ram: optNum,
  gpu_totalram: optNum,
  dph_total: optNum,
  reliability2: optNum,
  geolocation: optStr,
  /** Epoch seconds (float). */
  start_date: optNum,
});
export type MarketplaceInstance = z.infer<typeof MarketplaceInstanceSchema>;

/** `GET /instances/{id}/`: the object under the plural key; `null` means destroyed or unknown. */
export const ShowInstanceResponseSchema = z.object({ instances: MarketplaceInstanceSchema.nullable() });
export type ShowInstanceResponse = z.infer<typeof ShowInstanceResponseSchema>;

/**
 * One page of `GET /api/v1/instances/` (the v0 list is deprecated and answers 410 on some accounts):
 * `instances` may be null when there are none; `next_token` (passed back as `after_token`) is null or
 * empty on the last page. Rows are read one by one (MarketplaceInstanceSchema), so one malformed row
 * is reported and skipped instead of blinding the whole listing.
 */
export const InstancesPageSchema = z.object({
  success: z.boolean().optional().catch(undefined),
  instances_found: optNum,
  total_instances: optNum,
  next_token: optStr,
  instances: z
    .array(z.unknown())
    .nullable()
    .transform((v) => v ?? []),
});
export type InstancesPage = z.infer<typeof InstancesPageSchema>;

export const MarketplaceTemplateSchema = z.object({
  id: z.number().int(),
  hash_id: Str,
  name: optStr,
  image: optStr,
  tag: optStr,
  /** Docker-flag string, e.g. `-p 11434:11434 -e OLLAMA_MODEL=llama3.1:8b`. */
  env: optStr,
  onstart: optStr,
  runtype: optStr,
  recommended_disk_space: optNum,
  /** On the marketplace's recommended list. */
  recommended: z.boolean().nullable().optional().catch(null),
  /** Instances created from it (popularity). */
  count_created: optNum,
  /** The offer filters the template needs (driver, CUDA, memory...), as operator objects; offer-query.ts reads them. */
  extra_filters: z.unknown().optional(),
});
export type MarketplaceTemplate = z.infer<typeof MarketplaceTemplateSchema>;

export const TemplatesResponseSchema = z.object({
  success: z.boolean().optional(),
  templates_found: optNum,
  templates: z.array(MarketplaceTemplateSchema),
});
export type TemplatesResponse = z.infer<typeof TemplatesResponseSchema>;

export const CurrentUserSchema = z.object({
  id: z.number().int(),
  email: optStr,
  username: optStr,
  credit: optNum,
  balance: optNum,
});
export type CurrentUser = z.infer<typeof CurrentUserSchema>;

/** `DELETE /instances/{id}/` and other small acknowledgements: `success: false` is a refusal (the CLI checks it). */
export const SuccessResponseSchema = z.object({
  success: z.boolean().optional(),
  error: optStr,
  msg: optStr,
});
export type SuccessResponse = z.infer<typeof SuccessResponseSchema>;

/**
 * Error bodies: `{success:false, error, msg}`, or only `msg`/`message`, or FastAPI-style
 * `{detail}`. Plain-text bodies are handled by the client before this schema.
 */
export const MarketplaceErrorBodySchema = z.object({
  success: z.boolean().optional().catch(undefined),
  error: z.string().optional().catch(undefined),
  msg: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
  detail: z.unknown().optional(),
});
export type MarketplaceErrorBody = z.infer<typeof MarketplaceErrorBodySchema>;
