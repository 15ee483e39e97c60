import { z } from 'zod';

export const BACKEND_APIS = ['ollama', 'openai', 'auto'] as const;
/**
 * How benchdesk talks to an llmserver (design §13b): Ollama's `/api/*`, an OpenAI-compatible
 * `/v1/*` (vLLM, SGLang, TGI, llama.cpp, LM Studio, Ollama's own `/v1`), or `auto`: detect.
 */
export const BackendApiSchema = z.enum(BACKEND_APIS);
export type BackendApi = z.infer<typeof BackendApiSchema>;

/** The API actually spoken once `auto` is resolved. */
export const SpokenBackendApiSchema = z.enum(['ollama', 'openai']);
export type SpokenBackendApi = z.infer<typeof SpokenBackendApiSchema>;
