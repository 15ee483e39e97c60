import { z } from 'zod';
import { SpokenBackendApiSchema } from './backend-api';

/**
 * What a result needs to be reproduced (design §12b, "Manifest"): every suite result, serving
 * result and sweep report carries one. A field that does not apply is null (a suite field on a
 * serving run, the machine of an existing backend), never absent, so a reader can tell
 * "not applicable" from "not recorded by an older version" (the whole manifest absent).
 */

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lower-case hex');

export const ManifestMachineSchema = z.object({
  instance_id: z.number().int().nullable(),
  offer_id: z.number().int().nullable(),
  gpu_name: z.string().nullable(),
  num_gpus: z.number().int().nullable(),
  /** The machine's $/h when it was rented. */
  dph_at_rent: z.number().nullable(),
  /** What the host charged per GB downloaded (`inet_down_cost`). */
  download_usd_per_gb: z.number().nullable(),
});
export type ManifestMachine = z.infer<typeof ManifestMachineSchema>;

export const ManifestSchema = z.object({
  benchdesk_version: z.string(),
  suite_id: z.string().nullable(),
  /** SHA-256 of the suite's canonical JSON (scenarios in order, as stored). */
  suite_sha256: Sha256Schema.nullable(),
  /** Each snapshot the run read, by id: SHA-256 of its canonical document. */
  snapshot_sha256: z.record(z.string(), Sha256Schema).nullable(),
  model: z.string().nullable(),
  /** The backend's digest of the model's weights (Ollama's `digest`), where it reports one. */
  model_digest: z.string().nullable(),
  /** The API actually spoken (after `auto` detection): `ollama` or `openai`. */
  backend_api: SpokenBackendApiSchema.nullable(),
  backend_version: z.string().nullable(),
  agent: z.string().nullable(),
  agent_version: z.string().nullable(),
  temperature: z.number().nullable(),
  seed: z.number().int().nullable(),
  num_ctx: z.number().int().nullable(),
  template: z.object({ hash: z.string().nullable(), name: z.string().nullable() }).nullable(),
  machine: ManifestMachineSchema.nullable(),
  /** The request as validated, secrets redacted. */
  request: z.record(z.string(), z.unknown()).nullable(),
  started_at: z.iso.datetime({ offset: true }).nullable(),
});
export type Manifest = z.infer<typeof ManifestSchema>;
