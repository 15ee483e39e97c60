import { z } from 'zod';

/**
 * Wire shapes of the Ollama HTTP API, used to validate every response the
 * llmserver client receives. ollama-js's own TypeScript types are not trustworthy (dates are
 * typed Date but arrive as strings, `model_info` is typed Map), so we check the runtime shape.
 *
 * Objects are lenient on purpose: unknown fields are dropped, not rejected, because Ollama adds
 * fields between releases; metric fields are optional because Ollama omits zero values
 * (`omitempty`). Timestamps stay strings: Ollama writes RFC 3339 with nanoseconds and local
 * offsets, which we pass through rather than re-format.
 */

const count = z.number().int().nonnegative();
/** Durations are integer nanoseconds. */
const nanos = z.number().nonnegative();

export const OllamaErrorBodySchema = z.object({ error: z.string() });
export type OllamaErrorBody = z.infer<typeof OllamaErrorBodySchema>;

export const OllamaVersionSchema = z.object({ version: z.string() });
export type OllamaVersion = z.infer<typeof OllamaVersionSchema>;

export const OllamaModelDetailsSchema = z.object({
  parent_model: z.string().nullish(),
  format: z.string().nullish(),
  family: z.string().nullish(),
  families: z.array(z.string()).nullish(),
  parameter_size: z.string().nullish(),
  quantization_level: z.string().nullish(),
});
export type OllamaModelDetails = z.infer<typeof OllamaModelDetailsSchema>;

/** One entry of GET /api/tags. */
export const OllamaTagsModelSchema = z.object({
  name: z.string().min(1),
  model: z.string().nullish(),
  modified_at: z.string().nullish(),
  size: z.number().nonnegative().nullish(),
  digest: z.string().nullish(),
  details: OllamaModelDetailsSchema.nullish(),
  capabilities: z.array(z.string()).nullish(),
});
export type OllamaTagsModel = z.infer<typeof OllamaTagsModelSchema>;

/** `models` may be null on some servers when empty; absent means this is not Ollama. */
export const OllamaTagsResponseSchema = z.object({
  models: z.array(OllamaTagsModelSchema).nullable().transform((m) => m ?? []),
});
export type OllamaTagsResponse = z.infer<typeof OllamaTagsResponseSchema>;

/** One entry of GET /api/ps: a loaded model. */
export const OllamaPsModelSchema = OllamaTagsModelSchema.omit({ modified_at: true, capabilities: true }).extend({
  expires_at: z.string().nullish(),
  size_vram: z.number().nonnegative().nullish(),
  context_length: z.number().int().nonnegative().nullish(),
});
export type OllamaPsModel = z.infer<typeof OllamaPsModelSchema>;

export const OllamaPsResponseSchema = z.object({
  models: z.array(OllamaPsModelSchema).nullable().transform((m) => m ?? []),
});
export type OllamaPsResponse = z.infer<typeof OllamaPsResponseSchema>;

/** POST /api/show. Older servers have no `capabilities`; `model_info` is a plain object. */
export const OllamaShowResponseSchema = z.object({
  modelfile: z.string().nullish(),
  parameters: z.string().nullish(),
  template: z.string().nullish(),
  system: z.string().nullish(),
  license: z.string().nullish(),
  details: OllamaModelDetailsSchema.nullish(),
  model_info: z.record(z.string(), z.unknown()).nullish(),
  capabilities: z.array(z.string()).nullish(),
  modified_at: z.string().nullish(),
});
export type OllamaShowResponse = z.infer<typeof OllamaShowResponseSchema>;

/** One line of a POST /api/pull stream, or the single `stream:false` answer. */
export const OllamaProgressSchema = z.object({
  status: z.string(),
  digest: z.string().nullish(),
  total: z.number().nonnegative().nullish(),
  completed: z.number().nonnegative().nullish(),
});
export type OllamaProgress = z.infer<typeof OllamaProgressSchema>;

/** Metrics of a final (done:true) generate/chat answer; all omitempty. */
export const OllamaMetricsSchema = z.object({
  total_duration: nanos.optional(),
  load_duration: nanos.optional(),
  prompt_eval_count: count.optional(),
  prompt_eval_duration: nanos.optional(),
  eval_count: count.optional(),
  eval_duration: nanos.optional(),
});
export type OllamaMetrics = z.infer<typeof OllamaMetricsSchema>;

/** POST /api/generate (load, unload, completion). */
export const OllamaGenerateResponseSchema = OllamaMetricsSchema.extend({
  model: z.string(),
  created_at: z.string().nullish(),
  response: z.string().nullish(),
  thinking: z.string().nullish(),
  done: z.boolean(),
  done_reason: z.string().nullish(),
});
export type OllamaGenerateResponse = z.infer<typeof OllamaGenerateResponseSchema>;

/**
 * Native tool-call arguments are a JSON object. Some model templates emit a JSON string instead;
 * we accept that form when it decodes to an object, so the caller always sees an object.
 */
const ToolArgumentsSchema = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}, z.record(z.string(), z.unknown()));

export const OllamaToolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({
    index: z.number().int().nullish(),
    name: z.string().min(1),
    arguments: ToolArgumentsSchema.nullish().transform((a) => a ?? {}),
  }),
});
export type OllamaToolCall = z.infer<typeof OllamaToolCallSchema>;

export const OllamaChatMessageSchema = z.object({
  role: z.string(),
  content: z.string().nullish().transform((c) => c ?? ''),
  thinking: z.string().nullish(),
  tool_calls: z.array(OllamaToolCallSchema).nullish(),
  tool_name: z.string().nullish(),
});
export type OllamaChatMessage = z.infer<typeof OllamaChatMessageSchema>;

/** POST /api/chat: a non-streamed answer or one NDJSON chunk (metrics only on the done chunk). */
export const OllamaChatResponseSchema = OllamaMetricsSchema.extend({
  model: z.string(),
  created_at: z.string().nullish(),
  message: OllamaChatMessageSchema.nullish(),
  done: z.boolean(),
  done_reason: z.string().nullish(),
});
export type OllamaChatResponse = z.infer<typeof OllamaChatResponseSchema>;
