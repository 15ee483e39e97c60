import { z } from 'zod';
import { EventLabelsSchema, EventStatusSchema } from './jobs';

/**
 * Agents (design §5): the driver protocol, the agent result of design §4, driver settings, and the
 * shapes of every external input the agents module relies on (driver output, HolmesGPT and
 * k8sgpt output, the Kubernetes objects the built-in tools read, the LLM's tool-call arguments).
 * Inputs are parsed leniently where real producers vary (extra keys are dropped, omitted counts
 * are absent), strictly where a wrong shape means a bug on the other side.
 */

// ---------------------------------------------------------------------------------------------
// Names and settings

/** Same rule as the `agent` request field: lower-case letters, digits, _ and -. */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const AgentNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(AGENT_NAME_PATTERN, 'agent names are lower-case letters, digits, _ and -');

/** A driver command line (split without a shell) or an http(s):// URL of an HTTP driver. */
export const DriverCommandLineSchema = z.string().trim().min(1).max(4096);

/** Settings: `{name: commandLine}` of user drivers. */
export const DriverSettingsSchema = z.record(AgentNameSchema, DriverCommandLineSchema);
export type DriverSettings = z.infer<typeof DriverSettingsSchema>;

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
// Agent result (design §4 agentic-agent result)

const Count = z.number().int().nonnegative();
const MetadataExtra = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const AgentMetadataSchema = z
  .object({
    agent: z.string(),
    model: z.string().nullable(),
    /** LLM rounds (chat calls) the agent made. */
    steps: Count.nullable(),
    tool_calls: Count.nullable(),
    prompt_tokens: Count.nullable(),
    completion_tokens: Count.nullable(),
    tokens_per_second: z.number().nonnegative().nullable(),
    duration_ms: z.number().nonnegative().nullable(),
  })
  // Drivers may add scalar facts of their own (e.g. k8sgpt's problem count).
  .catchall(MetadataExtra);
export type AgentMetadata = z.infer<typeof AgentMetadataSchema>;

/** Free-form, by convention `{kind, title?, data}`. */
export const AgentArtifactSchema = z.record(z.string(), z.unknown());
export type AgentArtifact = z.infer<typeof AgentArtifactSchema>;

export const AgentResultSchema = z.object({
  answer: z.string().min(1),
  result_type: z.literal('text'),
  artifacts: z.array(AgentArtifactSchema),
  metadata: AgentMetadataSchema,
});
export type AgentResult = z.infer<typeof AgentResultSchema>;

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
  message: z.string().nullish(),
});
export type DriverHttpJob = z.infer<typeof DriverHttpJobSchema>;

// ---------------------------------------------------------------------------------------------
// HolmesGPT (`--json-output-file`, the LLMResult dump) and k8sgpt (`--output json`)

export const HolmesToolCallSchema = z.object({
  tool_call_id: z.string().nullish(),
  tool_name: z.string(),
  description: z.string().nullish(),
  result: z
    .object({
      status: z.string().nullish(),
      error: z.string().nullish(),
      return_code: z.number().nullish(),
      invocation: z.string().nullish(),
    })
    .nullish(),
});
export const HolmesLlmResultSchema = z.object({
  result: z.string().nullish(),
  tool_calls: z.array(HolmesToolCallSchema).nullish(),
  prompt_tokens: Count.nullish(),
  completion_tokens: Count.nullish(),
  total_tokens: Count.nullish(),
  total_cost: z.number().nullish(),
});
export type HolmesLlmResult = z.infer<typeof HolmesLlmResultSchema>;

export const K8sgptFailureSchema = z.object({
  Text: z.string(),
  KubernetesDoc: z.string().nullish(),
});
export const K8sgptResultSchema = z.object({
  kind: z.string(),
  name: z.string(),
  error: z.array(K8sgptFailureSchema).nullish(),
  details: z.string().nullish(),
  parentObject: z.string().nullish(),
});
export const K8sgptOutputSchema = z.object({
  provider: z.string().nullish(),
  errors: z.array(z.string()).nullish(),
  status: z.string(),
  problems: Count.nullish(),
  results: z.array(K8sgptResultSchema).nullish(),
});
export type K8sgptOutput = z.infer<typeof K8sgptOutputSchema>;

// ---------------------------------------------------------------------------------------------
// Kubernetes objects, only the fields the built-in tools read. client-node turns date-time
// fields into Date objects; a string is accepted too.

const KubeTimeSchema = z.union([z.date(), z.string()]).nullish();

const KubeMetadataSchema = z.object({
  name: z.string(),
  namespace: z.string().nullish(),
  creationTimestamp: KubeTimeSchema,
});

const KubeConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
});

const KubeContainerStateSchema = z.object({
  waiting: z.object({ reason: z.string().nullish(), message: z.string().nullish() }).nullish(),
  running: z.object({ startedAt: KubeTimeSchema }).nullish(),
  terminated: z
    .object({
      exitCode: z.number().int(),
      reason: z.string().nullish(),
      message: z.string().nullish(),
      signal: z.number().int().nullish(),
      finishedAt: KubeTimeSchema,
    })
    .nullish(),
});
export type KubeContainerState = z.infer<typeof KubeContainerStateSchema>;

const KubeContainerStatusSchema = z.object({
  name: z.string(),
  ready: z.boolean().nullish(),
  restartCount: z.number().int().nullish(),
  state: KubeContainerStateSchema.nullish(),
  lastState: KubeContainerStateSchema.nullish(),
});
export type KubeContainerStatus = z.infer<typeof KubeContainerStatusSchema>;

export const KubePodSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z
    .object({
      nodeName: z.string().nullish(),
      containers: z.array(z.object({ name: z.string() })).nullish(),
    })
    .nullish(),
  status: z
    .object({
      phase: z.string().nullish(),
      reason: z.string().nullish(),
      message: z.string().nullish(),
      conditions: z.array(KubeConditionSchema).nullish(),
      containerStatuses: z.array(KubeContainerStatusSchema).nullish(),
      initContainerStatuses: z.array(KubeContainerStatusSchema).nullish(),
    })
    .nullish(),
});
export type KubePod = z.infer<typeof KubePodSchema>;

export const KubeNamespaceSchema = z.object({
  metadata: KubeMetadataSchema,
  status: z.object({ phase: z.string().nullish() }).nullish(),
});
export type KubeNamespace = z.infer<typeof KubeNamespaceSchema>;

export const KubeEventSchema = z.object({
  metadata: KubeMetadataSchema,
  involvedObject: z.object({
    kind: z.string().nullish(),
    name: z.string().nullish(),
    namespace: z.string().nullish(),
  }),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  type: z.string().nullish(),
  count: z.number().int().nullish(),
  firstTimestamp: KubeTimeSchema,
  lastTimestamp: KubeTimeSchema,
  eventTime: KubeTimeSchema,
  series: z.object({ count: z.number().int().nullish(), lastObservedTime: KubeTimeSchema }).nullish(),
});
export type KubeEvent = z.infer<typeof KubeEventSchema>;

export const KubeDeploymentSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z.object({ replicas: z.number().int().nullish() }).nullish(),
  status: z
    .object({
      replicas: z.number().int().nullish(),
      updatedReplicas: z.number().int().nullish(),
      readyReplicas: z.number().int().nullish(),
      availableReplicas: z.number().int().nullish(),
      unavailableReplicas: z.number().int().nullish(),
      conditions: z.array(KubeConditionSchema).nullish(),
    })
    .nullish(),
});
export type KubeDeployment = z.infer<typeof KubeDeploymentSchema>;

export const KubeNodeSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z
    .object({
      unschedulable: z.boolean().nullish(),
      taints: z.array(z.object({ key: z.string(), effect: z.string(), value: z.string().nullish() })).nullish(),
    })
    .nullish(),
  status: z.object({ conditions: z.array(KubeConditionSchema).nullish() }).nullish(),
});
export type KubeNode = z.infer<typeof KubeNodeSchema>;

/** A list envelope; items are validated one by one so one odd object does not hide the rest. */
export const KubeListSchema = z.object({
  items: z.array(z.unknown()),
  metadata: z.object({ continue: z.string().nullish() }).nullish(),
});

/** The API server's error body. */
export const KubeStatusSchema = z.object({
  kind: z.literal('Status'),
  message: z.string().nullish(),
  reason: z.string().nullish(),
  code: z.number().int().nullish(),
});

// ---------------------------------------------------------------------------------------------
// Built-in agent tool arguments (written by the LLM). Small models send "50" for 50, "true" for
// true and "" or null for "not given": all accepted.

function blankToUndefined(v: unknown): unknown {
  return v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v;
}
const lenientInt = (min: number, max: number) =>
  z.preprocess(
    (v) => {
      const b = blankToUndefined(v);
      return typeof b === 'string' && /^\s*\d+\s*$/.test(b) ? Number(b) : b;
    },
    z.number().int().min(min).max(max).optional(),
  );
const lenientBool = z.preprocess((v) => {
  const b = blankToUndefined(v);
  if (b === 'true') return true;
  if (b === 'false') return false;
  return b;
}, z.boolean().optional());

/** DNS-1123 subdomain: what namespaces, pods, nodes and containers are named with. */
const KubeNameSchema = z
  .string()
  .trim()
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes object name (lower-case letters, digits, - and .)');
const optionalKubeName = z.preprocess(blankToUndefined, KubeNameSchema.optional());

export const ListNamespacesArgsSchema = z.object({});
export const ListUnhealthyPodsArgsSchema = z.object({ namespace: optionalKubeName });
export const GetPodLogsArgsSchema = z.object({
  namespace: KubeNameSchema,
  pod: KubeNameSchema,
  container: optionalKubeName,
  tail_lines: lenientInt(1, 500),
  previous: lenientBool,
});
export const ListWarningEventsArgsSchema = z.object({
  namespace: optionalKubeName,
  limit: lenientInt(1, 100),
});
export const ListUnavailableDeploymentsArgsSchema = z.object({ namespace: optionalKubeName });
export const GetNodeConditionsArgsSchema = z.object({ node: optionalKubeName });
