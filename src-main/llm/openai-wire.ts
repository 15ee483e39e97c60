import { z } from 'zod';

/**
 * Wire shapes of the OpenAI-compatible API as vLLM, SGLang, TGI, llama.cpp, LM Studio and
 * Ollama's own /v1 serve it (reference external-apis.md §F.4, §B.8), used to validate every
 * answer. Lenient where engines differ (extra fields dropped, optional ones optional), strict
 * where a wrong shape means this is not an OpenAI-compatible server.
 */

const count = z.number().int().nonnegative();

/** One entry of GET /v1/models; vLLM adds `max_model_len`, `root`, `parent`. */
export const OpenAiModelSchema = z.object({
  id: z.string().min(1),
  object: z.string().nullish(),
  created: z.number().nullish(),
  owned_by: z.string().nullish(),
  root: z.string().nullish(),
  max_model_len: z.number().int().positive().nullish(),
});
export type OpenAiModel = z.infer<typeof OpenAiModelSchema>;

export const OpenAiModelListSchema = z.object({
  object: z.string().nullish(),
  data: z.array(OpenAiModelSchema),
});

/** vLLM's GET /version. */
export const OpenAiVersionSchema = z.object({ version: z.string() });

export const OpenAiUsageSchema = z.object({
  prompt_tokens: count.nullish(),
  completion_tokens: count.nullish(),
  total_tokens: count.nullish(),
});
export type OpenAiUsage = z.infer<typeof OpenAiUsageSchema>;

/** A tool call's piece in a streamed delta: `index` says which call, `arguments` arrive in fragments. */
export const OpenAiToolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z
    .object({
      name: z.string().nullish(),
      arguments: z.string().nullish(),
    })
    .nullish(),
});

export const OpenAiChatChunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        delta: z
          .object({
            role: z.string().nullish(),
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            tool_calls: z.array(OpenAiToolCallDeltaSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish()
    .transform((c) => c ?? []),
  usage: OpenAiUsageSchema.nullish(),
});
export type OpenAiChatChunk = z.infer<typeof OpenAiChatChunkSchema>;

/** A non-streamed chat completion. */
export const OpenAiChatCompletionSchema = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().nullish(),
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string().nullish(), type: z.string().nullish(), function: z.object({ name: z.string().min(1), arguments: z.string().nullish() }) }))
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: OpenAiUsageSchema.nullish(),
});

/**
 * The message of an OpenAI-style error body: `{"error": {"message"}}` (OpenAI, Ollama's /v1),
 * `{"object": "error", "message"}` (vLLM), `{"error": "Unauthorized"}` is Ollama's shape and read there.
 */
export const OpenAiErrorMessage = z.union([
  z.object({ error: z.object({ message: z.string() }) }).transform((v) => v.error.message),
  z.object({ object: z.literal('error'), message: z.string() }).transform((v) => v.message),
]);
