import { z } from 'zod';
import { SpokenBackendApiSchema } from './backend-api';
import { backendApiFields, BackendTypeSchema, BackendUrlSchema } from './request-fields';

/** A model on an llmserver: from /api/tags, and for running ones also /api/ps. */
export const ModelEntrySchema = z.object({
  name: z.string(),
  size: z.number().nullable().optional(),
  family: z.string().nullable().optional(),
  parameter_size: z.string().nullable().optional(),
  quantization: z.string().nullable().optional(),
  modified_at: z.string().nullable().optional(),
  digest: z.string().nullable().optional(),
  size_vram: z.number().nullable().optional(),
  expires_at: z.string().nullable().optional(),
  context_length: z.number().nullable().optional(),
});
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

export const CatalogEntrySchema = z.object({
  name: z.string().min(1),
  vram_mb: z.number().int().positive(),
  required_disk_gb: z.number().int().positive(),
  /** What pulling the model downloads (GB): a rented host bills it at its inet_down_cost. */
  download_gb: z.number().positive().optional().describe("the model's download (GB)"),
  family: z.string().optional(),
  notes: z.string().optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

/** A catalog entry the user adds in settings.json (`extra_catalog_models`): `required_disk_gb` is computed from `vram_mb` when omitted. */
export const ExtraCatalogEntrySchema = CatalogEntrySchema.extend({ required_disk_gb: CatalogEntrySchema.shape.required_disk_gb.optional() });
export type ExtraCatalogEntry = z.infer<typeof ExtraCatalogEntrySchema>;

export const CatalogResponseSchema = z.object({ models: z.array(CatalogEntrySchema) });
export type CatalogResponse = z.infer<typeof CatalogResponseSchema>;

export const LlmModelsQuerySchema = z
  .object({
    backend_url: BackendUrlSchema,
    backend_type: BackendTypeSchema.default('llmserver'),
    ...backendApiFields,
  })
  .strict();
export type LlmModelsQuery = z.infer<typeof LlmModelsQuerySchema>;

export const LlmModelsResponseSchema = z.object({
  backend_url: z.string(),
  backend_type: z.literal('llmserver'),
  /** The API the server speaks (after `auto` detection). */
  backend_api: SpokenBackendApiSchema,
  models: z.array(ModelEntrySchema),
  running_models: z.array(ModelEntrySchema),
});
export type LlmModelsResponse = z.infer<typeof LlmModelsResponseSchema>;
