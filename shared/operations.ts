import type { z } from 'zod';
import type { JobCountsQuerySchema, JobKind, JobListQuerySchema } from './jobs';
import type { ListInstancesQuerySchema, ReleaseInstanceInputSchema } from './instances';
import type { MetricsSummaryQuerySchema } from './metrics';
import type { LlmModelsQuerySchema } from './models';
import type {
  CostEstimationRequestSchema,
  AgenticAgentRequestInput,
  BenchmarkRequestInput,
  LlmInstanceRequestInput,
  SuiteRequestInput,
  ServingBenchmarkRequestInput,
} from './requests';
import type { MarketplaceKeyTestInputSchema, SetMarketplaceKeyInputSchema, SettingsUpdateSchema } from './settings';
import type { TemplateSearchQuerySchema } from './templates';
import type { JobRequestsInputSchema } from './serving-results';
import type { RecordSnapshotInputSchema, SnapshotRefSchema, SnapshotDocumentInput } from './snapshots';
import type { CreateSuiteInput, SuiteDocumentInput, SuiteRefSchema } from './suites';
import type { ScoreAnswerInputSchema } from './scenario-score';
import type { SweepRefSchema, SweepReportInputSchema, SweepRequestInput } from './sweeps';
import type { HttpMethod, OperationDef } from './operations/common';
import { META_OPERATIONS } from './operations/meta';
import { JOB_OPERATIONS, type EventFeedInputSchema, type JobEventsInputSchema, type JobRefSchema } from './operations/jobs';
import { MODEL_OPERATIONS } from './operations/models';
import { METRICS_OPERATIONS } from './operations/metrics';
import { MARKETPLACE_OPERATIONS } from './operations/marketplace';
import { AGENT_OPERATIONS } from './operations/agents';
import { SETTINGS_OPERATIONS } from './operations/settings';
import { SNAPSHOT_OPERATIONS } from './operations/snapshots';
import { SUITE_OPERATIONS } from './operations/suites';
import { SWEEP_OPERATIONS } from './operations/sweeps';

export { REST_BODY, SNAPSHOT_IMPORT_LIMIT_BYTES, type OperationDef } from './operations/common';
export { CancelJobResponseSchema, CreateJobInputSchema, EventFeedInputSchema, JobEventsInputSchema, JobRefSchema, type CancelJobResponse } from './operations/jobs';

/** The app's own tenant: the desktop app and the CLI act as it; it owns settings, the marketplace key and the app token. */
export const APP_TENANT_ID = 'default';

/**
 * The operation table: every operation benchdesk offers, once. The HTTP routes, the OpenAPI
 * document, the typed client (HTTP), the IPC channels and the in-process adapter are all derived
 * from this table, so a page, a CLI command and a script see the same data and the same errors.
 *
 * `input` is the operation's input as one object (what IPC and the client take). Over HTTP, fields
 * named in `path` ({name} segments), `query` and `headers` travel there; `body` names the field
 * sent as the JSON body ('*' = the whole input). Domain validation (the job request schemas, the
 * estimate's cross-field rules) happens once, in the service, for every transport; `input` checks
 * the envelope that every transport must deliver.
 *
 * The operations are declared by area in ./operations/ (jobs, marketplace, snapshots, suites,
 * sweeps, settings, …) and spread here in the order the API reference lists them.
 */

export const OPERATIONS = {
  ...META_OPERATIONS,
  ...JOB_OPERATIONS,
  ...MODEL_OPERATIONS,
  ...METRICS_OPERATIONS,
  ...MARKETPLACE_OPERATIONS,
  ...AGENT_OPERATIONS,
  ...SETTINGS_OPERATIONS,
  ...SNAPSHOT_OPERATIONS,
  ...SUITE_OPERATIONS,
  ...SWEEP_OPERATIONS,
} as const satisfies Record<string, OperationDef>;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

type Ops = typeof OPERATIONS;
export type StreamOperationName = { [K in OperationName]: Ops[K] extends { stream: true } ? K : never }[OperationName];
export type UnaryOperationName = Exclude<OperationName, StreamOperationName>;
export const STREAM_OPERATION_NAMES = OPERATION_NAMES.filter((n) => 'stream' in OPERATIONS[n]) as StreamOperationName[];
export const UNARY_OPERATION_NAMES = OPERATION_NAMES.filter((n) => !('stream' in OPERATIONS[n])) as UnaryOperationName[];

/** A job request as a caller writes it (defaults may be left out), by kind. */
export type CreateJobInput =
  | { kind: 'benchmark'; request: BenchmarkRequestInput; idempotency_key?: string }
  | { kind: 'agentic-agent'; request: AgenticAgentRequestInput; idempotency_key?: string }
  | { kind: 'llm-instance'; request: LlmInstanceRequestInput; idempotency_key?: string }
  | { kind: 'suite'; request: SuiteRequestInput; idempotency_key?: string }
  | { kind: 'serving-benchmark'; request: ServingBenchmarkRequestInput; idempotency_key?: string };

/**
 * What callers pass: the domain schemas' input types (richer than the envelope schemas, which
 * leave the deep checks to the service so every transport reports them identically).
 */
export type OperationInputs = {
  getHealth: Record<string, never> | undefined;
  createEstimate: z.input<typeof CostEstimationRequestSchema>;
  createJob: CreateJobInput;
  listJobs: z.input<typeof JobListQuerySchema>;
  getJobCounts: z.input<typeof JobCountsQuerySchema> | undefined;
  getJob: z.input<typeof JobRefSchema>;
  cancelJob: z.input<typeof JobRefSchema>;
  getJobEvents: z.input<typeof JobEventsInputSchema>;
  getJobRequests: z.input<typeof JobRequestsInputSchema>;
  streamJobEvents: z.input<typeof JobEventsInputSchema>;
  streamEvents: z.input<typeof EventFeedInputSchema> | undefined;
  listCatalog: Record<string, never> | undefined;
  listLlmModels: z.input<typeof LlmModelsQuerySchema>;
  getMetricsSummary: z.input<typeof MetricsSummaryQuerySchema> | undefined;
  listInstances: z.input<typeof ListInstancesQuerySchema> | undefined;
  releaseInstance: z.input<typeof ReleaseInstanceInputSchema>;
  searchTemplates: z.input<typeof TemplateSearchQuerySchema> | undefined;
  listAgents: Record<string, never> | undefined;
  getSettings: Record<string, never> | undefined;
  updateSettings: z.input<typeof SettingsUpdateSchema>;
  getApiToken: Record<string, never> | undefined;
  rotateApiToken: Record<string, never> | undefined;
  testMarketplaceKey: z.input<typeof MarketplaceKeyTestInputSchema> | undefined;
  setMarketplaceKey: z.input<typeof SetMarketplaceKeyInputSchema>;
  getSpendSummary: Record<string, never> | undefined;
  recordSnapshot: z.input<typeof RecordSnapshotInputSchema>;
  listSnapshots: Record<string, never> | undefined;
  getSnapshot: z.input<typeof SnapshotRefSchema>;
  exportSnapshot: z.input<typeof SnapshotRefSchema>;
  importSnapshot: SnapshotDocumentInput;
  deleteSnapshot: z.input<typeof SnapshotRefSchema>;
  getSnapshotServing: z.input<typeof SnapshotRefSchema>;
  serveSnapshot: z.input<typeof SnapshotRefSchema>;
  stopServingSnapshot: z.input<typeof SnapshotRefSchema>;
  listSuites: Record<string, never> | undefined;
  getSuite: z.input<typeof SuiteRefSchema>;
  createSuite: CreateSuiteInput;
  deleteSuite: z.input<typeof SuiteRefSchema>;
  exportSuite: z.input<typeof SuiteRefSchema>;
  importSuite: SuiteDocumentInput;
  scoreAnswer: z.input<typeof ScoreAnswerInputSchema>;
  createSweep: SweepRequestInput;
  listSweeps: Record<string, never> | undefined;
  getSweep: z.input<typeof SweepRefSchema>;
  cancelSweep: z.input<typeof SweepRefSchema>;
  getSweepReport: z.input<typeof SweepReportInputSchema>;
};

export type OperationOutput<O extends OperationName> = z.output<Ops[O]['output']>;
export type OperationInput<O extends OperationName> = OperationInputs[O];

export type CallOptions = {
  signal?: AbortSignal;
  /**
   * Streams over HTTP: told when a connection is open (`open`) and when it broke, or sent nothing,
   * not even a heartbeat, for the client's idle timeout (`lost`); the stream then reconnects on its
   * own. Transports without a connection (IPC, in process) never call it.
   */
  onConnection?: (state: 'open' | 'lost') => void;
};

/**
 * The one typed interface every front end uses. Three implementations: the HTTP client
 * (shared/client), the in-process adapter (src-main/adapter) and, in the renderer, IPC.
 * Unary operations resolve with the output or reject with BenchdeskApiError (a problem body);
 * streams are AsyncIterables that end when the stream ends or `signal` aborts.
 */
export type BenchdeskClient = {
  [O in UnaryOperationName]: (input: OperationInput<O>, options?: CallOptions) => Promise<OperationOutput<O>>;
} & {
  [O in StreamOperationName]: (input: OperationInput<O>, options?: CallOptions) => AsyncIterable<OperationOutput<O>>;
};

/** Fills `{name}` path segments from the input. */
export function operationPath(name: OperationName, input: Record<string, unknown>): string {
  return OPERATIONS[name].path.replace(/\{(\w+)\}/g, (_m, field: string) => encodeURIComponent(String(input[field] ?? '')));
}

/** The fastify form of an operation path (`{id}` → `:id`). */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

const pathFieldsByOperation = new Map<OperationName, readonly string[]>();

/** Fields of an operation's input that travel in the path (computed once per operation: the HTTP routes ask on every request). */
export function pathFields(name: OperationName): readonly string[] {
  let fields = pathFieldsByOperation.get(name);
  if (!fields) {
    fields = Object.freeze([...OPERATIONS[name].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string));
    pathFieldsByOperation.set(name, fields);
  }
  return fields;
}

/**
 * What the createJob route of one kind (`POST /v1/jobs/<kind>`) adds to createJob's own description
 * and errors: the OpenAPI document and docs/api.md show it on that route.
 */
export const JOB_KIND_DOCS: Readonly<Partial<Record<JobKind, { readonly description: string; readonly errors?: Readonly<Record<number, string>> }>>> = {
  'serving-benchmark': {
    description:
      'How fast an llmserver serves `model` under concurrent load: for each `concurrency` level in turn, exactly that many streamed /api/chat requests stay in flight until `requests_per_level` have finished (after `warmup_requests` that are left out). ' +
      "The result gives each level's TTFT, TPOT, ITL and end-to-end latency (mean, p50, p90, p99, as vLLM's benchmark_serving defines them), request and token throughput, the server's own tokens/s, " +
      "and on a rented machine (`marketplace: true`) the $ per million output tokens from the machine's $/h; `best` names the fastest and the cheapest level. Each finished level is a `serving.level` event.",
    errors: {
      422: 'Besides the common rules: a concurrency level below 1, `concurrency` not a list, a level listed twice, `requests_per_level` below the largest level, or `output_tokens` below 1',
    },
  },
};

/** The job kinds a createJob path accepts, with the deprecated aliases (same kind, successor path). */
export const JOB_KIND_ALIASES: readonly { path: string; kind: JobKind; successor: string }[] = [
  { path: '/v1/jobs/llmserver-instance', kind: 'llm-instance', successor: '/v1/jobs/llm-instance' },
  { path: '/v1/jobs/llmserver', kind: 'llm-instance', successor: '/v1/jobs/llm-instance' },
  { path: '/v1/jobs/agent', kind: 'agentic-agent', successor: '/v1/jobs/agentic-agent' },
];

/** Routes that are not operations of the table: documented here so a test can check the server has nothing else. */
export const NON_OPERATION_ROUTES: readonly { method: HttpMethod; path: string; why: string; public?: boolean }[] = [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    // Public: it holds no secret, and generators (openapi-typescript, Prism) fetch it without a token.
    public: true,
    why: 'This API described as OpenAPI 3.1, generated from the same schemas the server validates with; `servers` names the address it was fetched from. Public: it holds no secret, so code generators can fetch it without a token.',
  },
];
