import { z } from 'zod';
import { BackendApiSchema } from './backend-api';

/**
 * The fields every request that runs on an llmserver shares (design §3/§4, §13b): the backend
 * (existing URL, the API it speaks, its key) and the marketplace's offer fields, with their
 * cross-field rules. Split from requests.ts so the job kinds' request files can share them.
 */

export const BACKEND_TYPES = ['llmserver', 'ollama'] as const;
/** `ollama` is accepted as a synonym and stored as `llmserver`. */
export const BackendTypeSchema = z
  .enum(BACKEND_TYPES, {
    error: () => `unknown backend_type; known types: ${BACKEND_TYPES.join(', ')}`,
  })
  .transform((): 'llmserver' => 'llmserver');
export type BackendType = 'llmserver';

export const ModelNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'model names use letters, digits and . _ : / -');

/** An llmserver URL (`http(s)://host[:port][/prefix]`); a bare `host[:port]` is read as `http://` (port 11434 when none). */
export const BackendUrlSchema = z.string().trim().min(1, 'a URL is required').max(2048);
export const UrlStringSchema = BackendUrlSchema;
/** The OpenAPI document's word for a backend URL (the bare-host convenience is left out of it). */
export const BACKEND_URL_DESCRIPTION = 'the llmserver (Ollama) base URL, http:// or https://; a bare host[:port] is read as http:// (port 11434 when none)';
export const TemplateHashSchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'template_hash is an identifier of letters, digits, _ and -');
export const DphSchema = z.number().nonnegative().max(1000);
export const ReliabilitySchema = z.number().min(0).max(1);
export const KubeconfigPathSchema = z.string().trim().min(1).max(4096);
/** An agent's name; the OpenAPI document lists the agents the server knows. */
export const AgentNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'agent names are lower-case letters, digits, _ and -');

export const DEFAULT_RELIABILITY = 0.99;
export const DEFAULT_WARMUP_TIMEOUT_S = 300;

export const marketplaceFields = {
  marketplace: z.boolean().default(false),
  template_hash: TemplateHashSchema.optional(),
  min_dph: DphSchema.default(0).describe('the lowest price per hour of the machines to consider ($/h)'),
  /** Required with marketplace; at least min_dph (a rule JSON Schema cannot state: see MARKETPLACE_RULES_JSON_SCHEMA). */
  max_dph: DphSchema.optional().describe('the highest price per hour to pay ($/h); required with marketplace, above 0 and at least min_dph'),
  reliability: ReliabilitySchema.default(DEFAULT_RELIABILITY),
  /** Spend limit ($) for the rented machine while the job holds it; absent = the max_cost_usd_default setting (off unless set). */
  max_cost_usd: z.number().positive().max(1_000_000).optional().describe('spend limit ($): the job is stopped, its machine released, and it fails budget_exceeded when its running cost reaches this; default: the default_max_cost_usd setting'),
  /** How long the job is expected to hold the machine: the pre-flight check of max_cost_usd prices this (default 3600 s). */
  estimated_duration_seconds: z.number().int().min(1).max(30 * 24 * 3600).optional().describe('how long the machine is expected to be held; the pre-rent check prices the offer for this (default 3600)'),
};

/**
 * The key of an OpenAI-compatible server started with `--api-key` (vLLM, SGLang, llama.cpp):
 * sent as `Authorization: Bearer <key>`, so it must be printable ASCII without spaces. Its name
 * makes the engine keep it out of the job record (a 0600 file under secrets/, `[redacted]` in the
 * record, masked in events and logs), like a password in a backend_url.
 */
export const BackendApiKeySchema = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces: it is sent as a Bearer token');

export const BACKEND_API_DESCRIPTION =
  'how to talk to the llmserver: `ollama` (/api/*), `openai` (an OpenAI-compatible /v1/*: vLLM, SGLang, TGI, llama.cpp, LM Studio, Ollama\'s own /v1), or `auto` (default): GET /api/version answers → ollama, else GET /v1/models answers → openai';

export const backendApiFields = {
  backend_api: BackendApiSchema.default('auto').describe(BACKEND_API_DESCRIPTION),
  backend_api_key: BackendApiKeySchema.optional().describe('the key of an OpenAI-compatible server that wants one (sent as a Bearer token); kept out of the job record, never logged'),
};

export const backendFields = {
  backend_url: UrlStringSchema.optional(),
  backend_type: BackendTypeSchema.default('llmserver'),
  ...backendApiFields,
  backend_warmup: z.boolean().default(true),
  backend_warmup_timeout: z.number().int().min(1).max(3600).default(DEFAULT_WARMUP_TIMEOUT_S),
};

/**
 * The name a rented OpenAI-compatible server's template is found by (design §13b): with
 * `backend_api: "openai"` on the marketplace and no `template_hash`, the marketplace's templates
 * named exactly this are searched (recommended first, then the most used).
 */
export const VLLM_TEMPLATE_NAME = 'vLLM';

/**
 * marketplaceIssues as JSON Schema, for the OpenAPI document of the llm-instance and benchmark
 * requests: with `marketplace: true`, max_dph (> 0) and model are required, template_hash too
 * unless backend_api is `openai` (then the vLLM template is found by name), and backend_url must
 * be absent; otherwise backend_url is required. `max_dph >= min_dph` compares two fields, which
 * JSON Schema cannot: max_dph's description says it. A test checks that this schema and the zod
 * rules agree on every combination.
 */
export const MARKETPLACE_RULES_JSON_SCHEMA = {
  if: { properties: { marketplace: { const: true } }, required: ['marketplace'] },
  then: {
    properties: { template_hash: {}, max_dph: { exclusiveMinimum: 0 }, model: {} },
    required: ['max_dph', 'model'],
    anyOf: [{ required: ['template_hash'] }, { properties: { backend_api: { const: 'openai' } }, required: ['backend_api'] }],
    not: { properties: { backend_url: {} }, required: ['backend_url'] },
  },
  else: { properties: { backend_url: {} }, required: ['backend_url'] },
} as const;

export type Issue = { path: (string | number)[]; message: string };

/** Cross-field rules for the marketplace/existing-backend choice, shared by llm-instance and benchmark. */
export function marketplaceIssues(v: {
  marketplace: boolean;
  template_hash?: string | undefined;
  min_dph: number;
  max_dph?: number | undefined;
  backend_url?: string | undefined;
  model?: string | undefined;
  backend_api?: string | undefined;
}): Issue[] {
  const issues: Issue[] = [];
  if (v.marketplace) {
    // A rented OpenAI server's template is found by name (VLLM_TEMPLATE_NAME) when no hash is given.
    if (!v.template_hash && v.backend_api !== 'openai') issues.push({ path: ['template_hash'], message: 'required when marketplace is true (with backend_api "openai" the vLLM template is found by name)' });
    if (v.max_dph === undefined) issues.push({ path: ['max_dph'], message: 'required when marketplace is true (the spend ceiling in $/hour)' });
    else if (v.max_dph < v.min_dph) issues.push({ path: ['max_dph'], message: 'must be >= min_dph' });
    else if (v.max_dph === 0) issues.push({ path: ['max_dph'], message: 'must be > 0' });
    if (!v.model) issues.push({ path: ['model'], message: 'required when marketplace is true (it sizes the GPU)' });
    if (v.backend_url) issues.push({ path: ['backend_url'], message: 'must not be set when marketplace is true' });
  } else if (!v.backend_url) {
    issues.push({ path: ['backend_url'], message: 'required when marketplace is false' });
  }
  return issues;
}


export function addIssues(ctx: z.RefinementCtx, issues: Issue[]): void {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}

