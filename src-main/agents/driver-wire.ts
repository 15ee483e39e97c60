import { z } from 'zod';
import { EventLabelsSchema, EventStatusSchema } from '../../shared/jobs';
import { AgentArtifactSchema } from '../../shared/results';

/**
 * Wire shapes of agent drivers (design §5): the driver protocol (one JSON line each way over
 * stdio, or JSON over HTTP for remote sidecars), what a driver answers and the events it reports.
 * The product record an ask turns into is AgentResult in shared/results.ts. Inputs are parsed
 * leniently where real producers vary (extra keys are dropped, omitted counts are absent),
 * strictly where a wrong shape means a bug on the other side.
 */

// ---------------------------------------------------------------------------------------------
// Names and settings

/** Same rule as the `agent` request field: lower-case letters, digits, _ and -. */
const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const AgentNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(AGENT_NAME_PATTERN, 'agent names are lower-case letters, digits, _ and -');

/** A driver command line (split without a shell) or an http(s):// URL of an HTTP driver. */
export const DriverCommandLineSchema = z.string().trim().min(1).max(4096);


// ---------------------------------------------------------------------------------------------
// Driver protocol: one JSON line each way

export const DRIVER_ACTIONS = ['ask', 'info'] as const;

export const DriverAskParamsSchema = z.object({
  question: z.string().trim().min(1).max(8000),
  model: z.string().trim().min(1).max(200),
  /** Absolute path; the caller resolves the KUBECONFIG / ~/.kube/config default. */
  kubeconfig: z.string().min(1).max(4096),
  backend_type: z.enum(['llmserver', 'ollama']).default('llmserver'),
  backend_url: z.string().trim().min(1).max(2048),
  /** Sampling the run asked for (suites, design §12b); drivers pass them to the model where they can. */
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().min(0).optional(),
  /** The API the server speaks (resolved by the job: never `auto` here); absent = ollama, as drivers written before it assume. */
  backend_api: z.enum(['ollama', 'openai']).default('ollama'),
  /** An OpenAI-compatible server's key; the job masks it in everything it records. */
  backend_api_key: z.string().min(1).max(512).optional(),
});
export type DriverAskParams = z.infer<typeof DriverAskParamsSchema>;

export const DriverRequestSchema = z.object({
  action: z.string().min(1).max(64),
  params: z.record(z.string(), z.unknown()).default({}),
  id: z.string().max(256),
});
export type DriverRequest = z.infer<typeof DriverRequestSchema>;

export const DriverOkResponseSchema = z.object({
  status: z.literal('ok'),
  result: z.unknown(),
  id: z.string(),
});
export const DriverErrorResponseSchema = z.object({
  status: z.literal('error'),
  error: z.string(),
  /**
   * What kind of failure (`not_installed`, `timeout`, `bad_output`, `failed`); optional, and an
   * unknown value reads as `failed`, so drivers written before it existed still work.
   */
  code: z.string().max(64).optional(),
  id: z.string(),
});
export const DriverResponseSchema = z.discriminatedUnion('status', [DriverOkResponseSchema, DriverErrorResponseSchema]);
export type DriverResponse = z.infer<typeof DriverResponseSchema>;

export const DriverInfoSchema = z.object({
  name: z.string().min(1).max(200),
  version: z.string().max(200),
  actions: z.array(z.string().max(64)).max(100),
});
export type DriverInfo = z.infer<typeof DriverInfoSchema>;

// ---------------------------------------------------------------------------------------------
// What a driver answers to `ask`, and the events it may report

const Count = z.number().int().nonnegative();
const MetadataExtra = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** What a driver may send back for `ask`: metadata it cannot know may be missing or null. */
export const DriverAgentResultSchema = z.object({
  answer: z.string(),
  result_type: z.literal('text').default('text'),
  artifacts: z
    .array(AgentArtifactSchema)
    .max(1000)
    .nullish()
    .transform((v) => v ?? []),
  metadata: z
    .object({
      agent: z.string().nullish(),
      model: z.string().nullish(),
      steps: Count.nullish(),
      tool_calls: Count.nullish(),
      prompt_tokens: Count.nullish(),
      completion_tokens: Count.nullish(),
      tokens_per_second: z.number().nonnegative().nullish(),
      duration_ms: z.number().nonnegative().nullish(),
    })
    .catchall(MetadataExtra)
    .nullish()
    .transform((v) => v ?? {}),
});
export type DriverAgentResult = z.infer<typeof DriverAgentResultSchema>;

/**
 * A structured event a driver process may write to stderr (one line, prefixed, see
 * DRIVER_EVENT_PREFIX) so that a job records its tool calls even when the agent runs out of process.
 */
export const DRIVER_EVENT_PREFIX = '@benchdesk-event ';
export const AgentEventSchema = z.object({
  event: z
    .string()
    .max(100)
    .regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/, 'dotted lower-case event name'),
  status: EventStatusSchema,
  message: z.string().max(4000).nullable().default(null),
  duration_ms: z.number().nonnegative().nullable().default(null),
  error_type: z.string().max(200).nullable().default(null),
  labels: EventLabelsSchema.default({}),
});
export type AgentEvent = z.infer<typeof AgentEventSchema>;

// ---------------------------------------------------------------------------------------------
// HTTP driver transport (remote driver sidecars)

export const DriverHttpAcceptedSchema = z.object({ job_id: z.string().min(1).max(256) });
export const DriverHttpJobSchema = z.object({
  status: z.string().min(1).max(64),
  result: z.unknown().optional(),
  error: z.string().nullish(),
  /** As in the stdio error line: `not_installed`, `timeout`, `bad_output`, `failed`. */
  code: z.string().max(64).nullish(),
  message: z.string().nullish(),
});
export type DriverHttpJob = z.infer<typeof DriverHttpJobSchema>;
