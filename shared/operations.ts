import { z } from 'zod';
import { HealthSchema } from './health';
import {
  JobAcceptedSchema,
  JobCountsQuerySchema,
  JobCountsSchema,
  JobEventsResponseSchema,
  JobKindSchema,
  JobListQuerySchema,
  JobListResponseSchema,
  JobRecordSchema,
  JobStatusSchema,
  JobStreamItemSchema,
  SeqParamSchema,
  type JobKind,
} from './jobs';
import { AgentListSchema } from './agents';
import { ListInstancesQuerySchema, MarketplaceInstanceListSchema, ReleaseInstanceBodySchema, ReleaseInstanceInputSchema, ReleaseInstanceResponseSchema } from './instances';
import { MetricsSummaryQuerySchema, MetricsSummarySchema } from './metrics';
import { CatalogResponseSchema, LlmModelsQuerySchema, LlmModelsResponseSchema } from './models';
import {
  CostEstimationRequestSchema,
  CostEstimationResponseSchema,
  type AgenticAgentRequestInput,
  type BenchmarkRequestInput,
  type LlmInstanceRequestInput,
  type SuiteRequestInput,
  type ServingBenchmarkRequestInput,
} from './requests';
import {
  ApiTokenResponseSchema,
  MarketplaceKeyTestInputSchema,
  MarketplaceKeyTestResponseSchema,
  SetMarketplaceKeyInputSchema,
  SettingsResponseSchema,
  SettingsUpdateSchema,
  SpendSummarySchema,
  UpdateSettingsResponseSchema,
} from './settings';
import { MarketplaceTemplateListSchema, TemplateSearchQuerySchema } from './templates';
import { SERVING_OPERATIONS } from './operations-serving';
import type { JobRequestsInputSchema } from './serving-results';
import { RecordSnapshotInputSchema, SnapshotDocumentSchema, SnapshotListSchema, SnapshotRefSchema, SnapshotSummarySchema, type SnapshotDocumentInput } from './snapshots';
import { SnapshotServingSchema, SnapshotServingStateSchema } from './snapshot-serving';
import { CreateSuiteInputSchema, SuiteDocumentSchema, SuiteListSchema, SuiteRefSchema, SuiteSchema, type CreateSuiteInput, type SuiteDocumentInput } from './suites';
import { ScoreAnswerInputSchema, ScoreAnswerOutputSchema } from './scenario-score';
import {
  CancelSweepResponseSchema,
  SweepAcceptedSchema,
  SweepListSchema,
  SweepRecordSchema,
  SweepRefSchema,
  SweepReportInputSchema,
  SweepReportOutputSchema,
  SweepRequestSchema,
  type SweepRequestInput,
} from './sweeps';

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
 */

/** The app's own tenant: the desktop app and the CLI act as it; it owns settings, the marketplace key and the app token. */
export const APP_TENANT_ID = 'default';

const JobIdSchema = z.string().min(1).max(128);
const AnyObjectSchema = z.record(z.string(), z.unknown());
const NoInputSchema = z.object({}).strict();

export const JobRefSchema = z.object({ job_id: JobIdSchema }).strict();
export const CancelJobResponseSchema = z.object({ job_id: z.string(), status: JobStatusSchema });
export type CancelJobResponse = z.infer<typeof CancelJobResponseSchema>;

export const CreateJobInputSchema = z
  .object({
    kind: JobKindSchema,
    /** Checked by the service with the kind's own schema (JOB_REQUEST_SCHEMAS), for every transport alike. */
    request: z.unknown(),
    idempotency_key: z.string().min(1).max(512).optional(),
  })
  .strict();

/** Events after `last_event_id` (the SSE Last-Event-ID header) when set, else after `after`. */
export const JobEventsInputSchema = z.object({ job_id: JobIdSchema, after: SeqParamSchema.optional(), last_event_id: SeqParamSchema.optional() }).strict();

export const EventFeedInputSchema = z.object({ after: SeqParamSchema.optional(), last_event_id: SeqParamSchema.optional() }).strict();

type HttpMethod = 'GET' | 'POST' | 'DELETE';

export type OperationDef = {
  /** One line: the OpenAPI summary and the heading of docs/api.md. */
  readonly summary: string;
  /** What the operation does and answers, for people writing clients (OpenAPI `description`). */
  readonly description: string;
  readonly tags: readonly string[];
  readonly method: HttpMethod;
  /** OpenAPI-style path: `{name}` segments are filled from the input field of that name. */
  readonly path: string;
  /** Deprecated paths answering the same operation (`Deprecation: true`, `Link` to `path`). */
  readonly aliases?: readonly string[];
  readonly input: z.ZodType;
  /** The response body, or for a stream the schema of each item. */
  readonly output: z.ZodType;
  /** Success status over HTTP. */
  readonly status: number;
  readonly query?: readonly string[];
  /**
   * What the HTTP body carries: `'*'` the whole input; a field name, that field; REST_BODY, the input's
   * fields that are not in the path (one JSON object, optional).
   */
  readonly body?: string;
  /** input field → HTTP header name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A live Server-Sent Events stream (HTTP), pushed items (IPC), an AsyncIterable (client). */
  readonly stream?: boolean;
  /** Public: answered without credentials (only /healthz). */
  readonly public?: boolean;
  /**
   * Only the app's own tenant (APP_TENANT_ID) may call it: settings, the marketplace key and the
   * app token are the app's, and a change reaches every tenant's jobs and machines. Any other
   * tenant gets 403 `forbidden_tenant`, over HTTP, IPC and the in-process client alike.
   */
  readonly appTenantOnly?: boolean;
  /** Richer schemas for the OpenAPI document where `input` leaves the deep checks to the service. */
  readonly docs?: {
    readonly body?: z.ZodType;
    readonly querystring?: z.ZodType;
    /** Media types the success answers besides JSON (the body is then text), each with when. */
    readonly media?: Readonly<Record<string, string>>;
  };
  /**
   * Error statuses this operation answers beyond the ones every route can (see the OpenAPI module),
   * each with when. The OpenAPI document declares them; a test sends requests and checks that every
   * status the server answers is declared.
   */
  readonly errors?: Readonly<Record<number, string>>;
  /** A larger body limit than the API's 1 MiB (a snapshot document), in bytes. */
  readonly bodyLimit?: number;
};

/** The largest snapshot document `POST /v1/snapshots/import` takes. */
export const SNAPSHOT_IMPORT_LIMIT_BYTES = 64 * 1024 * 1024;

/** `body` value: the input's fields outside the path travel as the JSON body (no input field can be named so). */
export const REST_BODY = '...rest';

export const OPERATIONS = {
  getHealth: {
    summary: 'Liveness and status; always public',
    description:
      'Answers without credentials, even while the address is locked out: `status` is `ok`, or `degraded` when the data directory cannot be written (a full disk). ' +
      'Also the version and how authentication is configured (`enabled`, `disabled`, `unconfigured`).',
    tags: ['meta'],
    method: 'GET',
    path: '/healthz',
    input: NoInputSchema,
    output: HealthSchema,
    status: 200,
    public: true,
  },
  createEstimate: {
    summary: 'Estimate what renting marketplace GPUs will cost',
    description:
      'Prices a job before it runs: with a marketplace key, from the live offers that fit the model and the price range (`basis: live_offers`, or `no_offers` with the nearest offer); ' +
      'without one, or when the marketplace does not answer, from the price range alone (`price_range`, with a warning). Answers synchronously; nothing is rented.',
    tags: ['marketplace'],
    method: 'POST',
    path: '/v1/estimates',
    // The service checks the body with CostEstimationRequestSchema (400 if not an object, 422 if invalid).
    input: z.unknown(),
    docs: { body: CostEstimationRequestSchema },
    output: CostEstimationResponseSchema,
    status: 200,
    body: '*',
  },
  createJob: {
    summary: 'Submit a job; durable before the 202',
    description:
      'Validates the request of the kind in the path, stores the job and answers 202 with its id and a `Location`; the job then runs in the background (follow it with the events stream). ' +
      'With an `Idempotency-Key`, a retry with the same body answers the same job (`Idempotent-Replayed: true`) instead of running it again.',
    tags: ['jobs'],
    method: 'POST',
    path: '/v1/jobs/{kind}',
    input: CreateJobInputSchema,
    output: JobAcceptedSchema,
    status: 202,
    body: 'request',
    headers: { idempotency_key: 'idempotency-key' },
    errors: { 409: 'A request with the same Idempotency-Key is still being accepted (`idempotency_in_flight`): retry it' },
  },
  listJobs: {
    summary: 'List jobs, newest first, with cursor paging',
    description:
      "The caller's jobs, newest first (or by `sort`), filtered by status and kind, and by `q`: words that must all occur in the job's id, model, backend, message, error code, question or agent. `next_cursor` is null on the last page; pass it as `cursor` for the next one.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs',
    input: JobListQuerySchema,
    output: JobListResponseSchema,
    status: 200,
    query: ['status', 'kind', 'q', 'sort', 'limit', 'cursor'],
  },
  getJobCounts: {
    summary: "How many of the caller's jobs are in each status and of each kind",
    description: 'Counts for the status and kind filters of a job list, optionally within one kind; cheap enough to refresh on every status change.',
    tags: ['jobs'],
    method: 'GET',
    // Not under /v1/jobs/: that segment is a job id.
    path: '/v1/job-counts',
    input: JobCountsQuerySchema,
    output: JobCountsSchema,
    status: 200,
    query: ['kind', 'q'],
  },
  getJob: {
    summary: 'Get one job',
    description: "The job's record: status, request (secrets redacted), progress, result or error. Another tenant's job answers 404, as a missing one does.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}',
    input: JobRefSchema,
    output: JobRecordSchema,
    status: 200,
    errors: { 405: 'The id is the name of a job kind: `/v1/jobs/<kind>` only takes POST (submit a job)' },
  },
  cancelJob: {
    summary: 'Cancel a job; it ends `cancelled` after its cleanup (rented machines released)',
    description:
      'A queued job is cancelled at once; a running one is stopped, releases what it rented, then ends `cancelled` (the answer says the status at the time of the answer). ' +
      'A job that has already ended answers 409.',
    tags: ['jobs'],
    method: 'POST',
    path: '/v1/jobs/{job_id}/cancel',
    input: JobRefSchema,
    output: CancelJobResponseSchema,
    status: 202,
    errors: { 409: 'The job has already ended (`job_not_cancellable`)' },
  },
  getJobEvents: {
    summary: "A job's events so far (`after` = only events with a greater seq)",
    description:
      "The job's append-only event list, oldest first (`seq` is a global, increasing number). With `Accept: text/event-stream` the same path is the live stream (streamJobEvents).",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}/events',
    input: JobEventsInputSchema,
    output: JobEventsResponseSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    errors: { 422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)' },
  },
  ...SERVING_OPERATIONS,
  streamJobEvents: {
    summary: "A job's events as a live stream (SSE: id = seq, Last-Event-ID resumes); ends after the terminal event",
    description:
      "Server-Sent Events: the job's events from `after` (or `Last-Event-ID`) on, then live, ending after the job's terminal event. " +
      'A client that reads too slowly is disconnected and resumes with Last-Event-ID.',
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}/events',
    input: JobEventsInputSchema,
    output: JobStreamItemSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    stream: true,
    errors: { 422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)' },
  },
  streamEvents: {
    summary: "Live feed of every job of the caller's tenant: status changes and events (SSE)",
    description:
      "Server-Sent Events of every job of the caller's tenant. Resuming with Last-Event-ID replays what was missed; when that is older than the server still holds " +
      '(a long disconnection, a restart), a `reset` event says so and the stream goes on live: fetch the jobs again. A client that reads too slowly is disconnected.',
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/events',
    input: EventFeedInputSchema,
    output: JobStreamItemSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    stream: true,
    errors: {
      406: 'The request does not accept `text/event-stream`: this path is only a stream',
      422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)',
    },
  },
  listCatalog: {
    summary: 'Marketplace model catalog',
    description: 'The models benchdesk can run on a rented machine, with the VRAM and disk each needs (what sizes the GPU of an estimate or a job).',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/catalog/marketplace-models',
    aliases: ['/v1/models/marketplace'],
    input: NoInputSchema,
    output: CatalogResponseSchema,
    status: 200,
  },
  listLlmModels: {
    summary: 'Models of an llmserver backend, with the running ones',
    description: 'Asks the llmserver (Ollama) at `backend_url` for its models and the ones loaded now. A backend that cannot be reached or answers an error is a 502 naming it.',
    tags: ['llmserver'],
    method: 'GET',
    path: '/v1/llm/models',
    aliases: ['/v1/llmserver/models', '/v1/models/llmserver'],
    input: AnyObjectSchema,
    docs: { querystring: LlmModelsQuerySchema.omit({ backend_api_key: true }) },
    output: LlmModelsResponseSchema,
    status: 200,
    query: ['backend_url', 'backend_type', 'backend_api'],
    // The key of an OpenAI-compatible server travels in a header, never in the URL (logs, history).
    headers: { backend_api_key: 'x-backend-api-key' },
    errors: { 502: 'The llmserver could not be reached (`upstream_unreachable`), refused the key (`upstream_error`) or answered an error (`upstream_error`)' },
  },
  getMetricsSummary: {
    summary: 'Event metrics of the tenant, or of one job',
    description: "Counts and durations (average, min, max, p95) of the timed steps (`ok`/`error` events) of the tenant's jobs, or of one job with `job_id`.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/metrics/summary',
    input: MetricsSummaryQuerySchema,
    output: MetricsSummarySchema,
    status: 200,
    query: ['job_id'],
  },
  listInstances: {
    summary: 'Marketplace machines labelled `benchdesk:*` with their job, $/h, cost so far and active/kept/orphaned (`orphaned=true`: only orphans)',
    description:
      'Every machine on the marketplace account whose label starts with `benchdesk:`, with its job, price and cost so far (the ledger\'s figure: machine time plus downloads), and why it is still up. ' +
      'A machine whose release is not confirmed yet stays listed (`state: "release pending"`, `release_error`) and keeps counting until it is gone. ' +
      'Without a marketplace key the list is empty and `note` says why.',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/marketplace/instances',
    input: ListInstancesQuerySchema,
    output: MarketplaceInstanceListSchema,
    status: 200,
    query: ['orphaned'],
    errors: { 502: 'The marketplace did not answer the instance list, or answered an error' },
  },
  releaseInstance: {
    summary:
      'Destroy one benchdesk machine and confirm it is gone (409 `instance_active` while its job runs: cancel the job instead; 409 `instance_foreign` for another install\'s machine unless the body says `{"force": true}`)',
    description:
      'Destroys the machine and answers once the marketplace confirms it is gone, with what it cost in the end (`cost_usd`: machine time up to the release plus downloads, `download_usd` its downloads\' part). ' +
      'A release the marketplace does not confirm answers 502 and is retried by benchdesk until confirmed; the machine keeps counting in the spend meanwhile. A machine whose job is still active answers 409 (cancel the job instead); ' +
      "a machine another benchdesk install rented answers 409 unless the body says `{\"force\": true}` (only the app's own tenant may force); one that is not a benchdesk machine answers 404.",
    tags: ['marketplace'],
    method: 'POST',
    path: '/v1/marketplace/instances/{instance_id}/release',
    input: ReleaseInstanceInputSchema,
    // The id travels in the path, `force` in the (optional) body.
    body: REST_BODY,
    docs: { body: ReleaseInstanceBodySchema },
    output: ReleaseInstanceResponseSchema,
    status: 200,
    errors: {
      403: "`force` from a tenant other than the app's own (`forbidden_tenant`)",
      409: "Its job is still active (`instance_active`), another install's machine without `force` (`instance_foreign`), or no marketplace key is set (`marketplace_not_configured`)",
      502: 'The marketplace did not confirm the release, or answered an error',
    },
  },
  searchTemplates: {
    summary: "The marketplace's templates by name or hash (`q`; absent: the recommended ones), for choosing what a rented machine runs",
    description:
      'Searches the marketplace templates by exact name or hash (names containing `q` come from the recommended list already read); without `q`, the recommended ones. ' +
      'Without a marketplace key the list is empty and `note` says why.',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/marketplace/templates',
    input: TemplateSearchQuerySchema,
    output: MarketplaceTemplateListSchema,
    status: 200,
    query: ['q'],
    errors: { 502: 'The marketplace did not answer the template search, or answered an error' },
  },
  listAgents: {
    summary: 'The agents a job can ask: builtin, the bundled holmes and k8sgpt drivers, and registered drivers',
    description: 'Every agent this server knows, with where it comes from (built in, bundled, settings, environment) and how it is reached: the values `agent` takes in a job request.',
    tags: ['agents'],
    method: 'GET',
    path: '/v1/agents',
    input: z.object({}).strict(),
    output: AgentListSchema,
    status: 200,
  },
  getSettings: {
    summary: 'The Settings page: editable settings, where each comes from, when a change applies, and the environment (data dir, API address, marketplace key status)',
    description: 'Each editable setting with its value, where it comes from (default, settings file, environment) and when a change applies; plus the data directory, the API address and whether a marketplace key is set.',
    tags: ['settings'],
    method: 'GET',
    path: '/v1/settings',
    input: z.object({}).strict(),
    output: SettingsResponseSchema,
    status: 200,
  },
  updateSettings: {
    summary: 'Change some settings (partial; null resets one); answers the new settings and which changed',
    description: 'A partial update: the settings named in the body change, `null` resets one to its default, the others stay. Answers the new settings and which ones changed.',
    tags: ['settings'],
    method: 'POST',
    path: '/v1/settings',
    input: SettingsUpdateSchema,
    output: UpdateSettingsResponseSchema,
    appTenantOnly: true,
    status: 200,
    body: '*',
  },
  getApiToken: {
    summary: "The app's API token in plaintext (tenant `default`; shown only when asked)",
    description: "The desktop app's own token, for copying into a script. Only for the app's tenant.",
    tags: ['settings'],
    method: 'GET',
    path: '/v1/settings/api-token',
    input: z.object({}).strict(),
    output: ApiTokenResponseSchema,
    appTenantOnly: true,
    status: 200,
  },
  rotateApiToken: {
    summary: 'Replace the app token: the old one gets 401 from the next request, the `api-token` file is rewritten (0600)',
    description: 'Creates a new app token: the old one stops working from the next request, and the `api-token` file in the data directory is rewritten. Answers the new token.',
    tags: ['settings'],
    method: 'POST',
    path: '/v1/settings/api-token/rotate',
    input: z.object({}).strict(),
    output: ApiTokenResponseSchema,
    appTenantOnly: true,
    status: 200,
    body: '*',
  },
  testMarketplaceKey: {
    summary: 'Ask the marketplace whether the key in use (or a candidate `key`) works (GET /users/current)',
    description: 'Asks the marketplace who the key belongs to: the key in use, or `key` from the body before saving it. A refused key is an answer (`ok: false` and why), not an error.',
    tags: ['settings'],
    method: 'POST',
    path: '/v1/settings/marketplace-key/test',
    input: MarketplaceKeyTestInputSchema,
    output: MarketplaceKeyTestResponseSchema,
    appTenantOnly: true,
    status: 200,
    body: '*',
  },
  setMarketplaceKey: {
    summary: 'Set or clear (null) the app\'s marketplace key (desktop app: encrypted with safeStorage); 409 where the key can only come from VAST_API_KEY',
    description: 'Stores the key used for estimates and rentals (`null` clears it). Where the key can only come from the environment (`VAST_API_KEY`), this answers 409.',
    tags: ['settings'],
    method: 'POST',
    path: '/v1/settings/marketplace-key',
    input: SetMarketplaceKeyInputSchema,
    output: SettingsResponseSchema,
    appTenantOnly: true,
    status: 200,
    body: '*',
    errors: { 409: 'The key comes from the environment here and cannot be changed (`marketplace_not_configured`)' },
  },
  getSpendSummary: {
    summary: "Spend today and this month from the ledger: the tenant's jobs, kept machines, sweeps and downloads",
    description:
      "What the tenant has spent on rented machines today and this month (UTC), from the ledger: every machine benchdesk rented for a job, an llm-instance kept after its job (up to its release), " +
      'a sweep, and every model download (GB × the host\'s $/GB). A machine counts from its rent to its confirmed release; one still running counts up to now (`running_dph`). ' +
      "Jobs from before the ledger count with the cost they recorded.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/spend',
    input: z.object({}).strict(),
    output: SpendSummarySchema,
    status: 200,
  },
  recordSnapshot: {
    summary: 'Record a cluster into a snapshot',
    description:
      "Reads the cluster of a kubeconfig on the server's machine into a read-only snapshot: its objects, events and the last lines of its containers' current and previous logs. Secrets are never read, environment values become `***`, config maps keep their keys only. Bounded to 60 s. Tenant `default` only.",
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots',
    // The service checks the body (after the tenant check) with RecordSnapshotInputSchema.
    input: z.unknown(),
    docs: { body: RecordSnapshotInputSchema },
    output: SnapshotSummarySchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    errors: { 502: 'the cluster could not be reached or refused the kubeconfig; the problem names the server' },
  },
  listSnapshots: {
    summary: 'List the recorded clusters',
    description: 'The snapshots of this install, newest recording first, each with when and where it was recorded, what it holds and who uses it.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots',
    input: NoInputSchema,
    output: SnapshotListSchema,
    status: 200,
  },
  getSnapshot: {
    summary: 'Get one snapshot',
    description:
      "One snapshot's summary: when and where it was recorded (`recorded_at`, `source`), how many objects of each kind it holds (`counts`), its size, who uses it (`used_by`), and its `warnings`: what could not be recorded and what the snapshot lint found (`lint`: timeline impossibilities such as log lines or events stamped after `recorded_at`, logs that contradict their container's states, a pod on a node whose taint it does not tolerate, a node Ready=Unknown with a fresh heartbeat).",
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}',
    input: SnapshotRefSchema,
    output: SnapshotSummarySchema,
    status: 200,
  },
  exportSnapshot: {
    summary: 'Export a snapshot',
    description: 'The whole snapshot as one portable JSON document (format `benchdesk.snapshot/v1`), to import on another install or keep beside a suite.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}/export',
    input: SnapshotRefSchema,
    output: SnapshotDocumentSchema,
    status: 200,
    errors: { 429: '`too_many_exports`: this tenant already runs the most exports at once (2); retry after `Retry-After` seconds' },
  },
  importSnapshot: {
    summary: 'Import a snapshot',
    description:
      'Stores a snapshot document (an export, or one written by hand). A malformed document is a 422 naming each wrong path; the same content again answers the snapshot already stored. A well-formed document with timeline impossibilities is stored, and the answer names them (`warnings`, `lint`). Up to 64 MiB. Tenant `default` only.',
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots/import',
    // The service checks the document (after the tenant check), so the 422 names the path in it.
    input: z.unknown(),
    docs: { body: SnapshotDocumentSchema },
    output: SnapshotSummarySchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    bodyLimit: SNAPSHOT_IMPORT_LIMIT_BYTES,
  },
  deleteSnapshot: {
    summary: 'Delete a snapshot',
    description: 'Deletes a snapshot and its files. Tenant `default` only.',
    tags: ['snapshots'],
    method: 'DELETE',
    path: '/v1/snapshots/{snapshot_id}',
    input: SnapshotRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
    errors: { 409: '`snapshot_in_use`: a suite or a running job uses it; the problem names them' },
  },
  getSnapshotServing: {
    summary: 'Whether a snapshot is served from the app',
    description: 'The read-only Kubernetes API serving this snapshot for people (started with `POST .../serve`): its URL and kubeconfig path, or `serving: null`.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: SnapshotServingStateSchema,
    status: 200,
  },
  serveSnapshot: {
    summary: 'Serve a snapshot as a read-only Kubernetes API',
    description:
      "Starts a read-only Kubernetes API for the snapshot on 127.0.0.1 (as `benchdesk snapshot serve` does) and answers its URL and the path of a kubeconfig for it on the server's machine: `KUBECONFIG=<path> kubectl get pods -A`. Serving again answers the one already running. It runs until `DELETE .../serve` or the server stops; while it runs the snapshot is in use (it cannot be deleted). Tenant `default` only.",
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: SnapshotServingSchema,
    status: 200,
    appTenantOnly: true,
  },
  stopServingSnapshot: {
    summary: 'Stop serving a snapshot',
    description: 'Stops the read-only Kubernetes API started with `POST .../serve` and removes its kubeconfig; a snapshot that is not served answers 204 too (an unknown one 404). Tenant `default` only.',
    tags: ['snapshots'],
    method: 'DELETE',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
  },
  listSuites: {
    summary: 'List the suites',
    description: 'Every suite of this install, the shipped `starter` suite first: name, description, how many scenarios, their tags, and whether it is read-only.',
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites',
    input: NoInputSchema,
    output: SuiteListSchema,
    status: 200,
  },
  getSuite: {
    summary: 'Get one suite with its scenarios',
    description: "A suite and every scenario: the question, the snapshot it runs on, the findings a correct answer must contain (regex alternatives), the claims it must not make, tags and difficulty.",
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites/{suite_id}',
    input: SuiteRefSchema,
    output: SuiteSchema,
    status: 200,
  },
  createSuite: {
    summary: 'Create a suite',
    description:
      'Stores a suite of scenarios on snapshots of this install. Every regular expression must compile: one that does not is a 422 naming its path (e.g. `scenarios.0.expected.1.any_of.0`), as is a scenario whose snapshot is not stored. Tenant `default` only.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites',
    // The service checks the body (after the tenant check) so each transport names the same paths.
    input: z.unknown(),
    docs: { body: CreateSuiteInputSchema },
    output: SuiteSchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    errors: { 409: '`suite_exists`: a suite with that `suite_id` is already stored' },
  },
  deleteSuite: {
    summary: 'Delete a suite',
    description: 'Deletes a suite (its snapshots stay, and can be deleted once no suite uses them). The shipped `starter` suite is read-only. Tenant `default` only.',
    tags: ['suites'],
    method: 'DELETE',
    path: '/v1/suites/{suite_id}',
    input: SuiteRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
    errors: { 409: '`suite_read_only`: the shipped suite cannot be deleted' },
  },
  exportSuite: {
    summary: 'Export a suite with its snapshots',
    description: 'The suite and every snapshot its scenarios run on, as one portable JSON document (format `benchdesk.suite/v1`), to import on another install.',
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites/{suite_id}/export',
    input: SuiteRefSchema,
    output: SuiteDocumentSchema,
    status: 200,
    errors: { 409: '`snapshot_not_found`: a snapshot the suite runs on can no longer be read (its file was set aside as corrupt); the problem names it' },
  },
  importSuite: {
    summary: 'Import a suite with its snapshots',
    description:
      'Stores an exported suite and the snapshots it carries (a snapshot already stored with the same content is reused). A malformed document is a 422 naming each wrong path; an id already taken gets a new one. Up to 64 MiB. Tenant `default` only.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites/import',
    input: z.unknown(),
    docs: { body: SuiteDocumentSchema },
    output: SuiteSchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    bodyLimit: SNAPSHOT_IMPORT_LIMIT_BYTES,
  },
  scoreAnswer: {
    summary: 'Score an answer to one scenario, without a run',
    description:
      "The rules a suite run applies (design §12b), on an answer you give: the answer is split into statements, and each finding, each `must_not` claim (and on the healthy scenario each fault) counts only in an affirmed statement — not negated, dismissed, asked or quoted tool output. " +
      'A structured verdict block in the answer is checked against the scenario\'s ground truth. `statements` says which statements counted and why. Scored off the main thread within a time limit.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites/{suite_id}/score',
    input: ScoreAnswerInputSchema,
    // The suite travels in the path; `{scenario_id, answer}` in the body.
    body: REST_BODY,
    docs: { body: ScoreAnswerInputSchema.omit({ suite_id: true }) },
    output: ScoreAnswerOutputSchema,
    status: 200,
    errors: {
      404: '`suite_not_found` or `scenario_not_found`: no such suite, or the suite has no such scenario (the problem lists its scenarios)',
      422: 'A bad body (`validation_failed`: `scenario_id` and `answer` are required, the answer at most 100,000 characters), or `scoring_timeout`: a pattern of the scenario took longer than the time limit',
    },
  },
  createSweep: {
    summary: 'Start a sweep: models × GPUs, one rented machine per GPU, a ranked answer',
    description:
      'Validates the sweep, stores it (on disk before the 202) and answers its id with a `Location`. In the background, for each GPU name it rents one machine ' +
      '(the cheapest offer of that GPU whose memory fits the largest model that fits at all), runs every model on it in turn (the suite and/or the serving benchmark, as jobs), ' +
      'then releases it; a model no offer of that GPU can hold is a `skipped` cell and nothing is rented for it. `machines_at_once` GPUs run in parallel. ' +
      'Reaching `max_total_cost_usd` (machine time plus downloads, checked at every cost change and at least every 5 s) releases every machine and ends the unfinished cells `budget_exceeded`. ' +
      'A sweep whose cells failed or could not be rented, or whose machine is not confirmed released, ends with `outcome.clean` false and says why in `outcome.problems`.',
    tags: ['sweeps'],
    method: 'POST',
    path: '/v1/sweeps',
    // The service checks the body with SweepRequestSchema, so every transport reports the same 422.
    input: z.unknown(),
    docs: { body: SweepRequestSchema },
    output: SweepAcceptedSchema,
    status: 202,
    body: '*',
  },
  listSweeps: {
    summary: "The caller's sweeps, newest first",
    description: "Every sweep of the caller's tenant, newest first, each with its cells, machines, spend and ranking.",
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps',
    input: NoInputSchema,
    output: SweepListSchema,
    status: 200,
  },
  getSweep: {
    summary: 'Get one sweep',
    description:
      "The sweep's status, spend (`spend_usd`, the ledger's cost of its machines: time plus downloads), its cells (model × GPU, each with its status, jobs, score and cost), " +
      "its machines, `ranking` (cell indexes, best first) and, once ended, `outcome` (cells succeeded, failed, unrented, skipped, not run; machines not confirmed released; `clean`). Another tenant's sweep answers 404, as a missing one does.",
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps/{sweep_id}',
    input: SweepRefSchema,
    output: SweepRecordSchema,
    status: 200,
  },
  cancelSweep: {
    summary: 'Cancel a sweep: every machine released, unfinished cells `cancelled`',
    description:
      'Stops the sweep: its running jobs are cancelled, every machine it holds is released, and the cells not finished end `cancelled`. ' +
      'Answers at once with the status then; the sweep ends `cancelled` once its machines are released. A sweep that has already ended answers 409.',
    tags: ['sweeps'],
    method: 'POST',
    path: '/v1/sweeps/{sweep_id}/cancel',
    input: SweepRefSchema,
    output: CancelSweepResponseSchema,
    status: 202,
    errors: { 409: 'The sweep has already ended (`sweep_not_cancellable`)' },
  },
  getSweepReport: {
    summary: 'The sweep as a ranked report: JSON, Markdown (`md`) or CSV',
    description:
      'The ranked table (accuracy first, then cost per correct answer; a serving-only sweep by $ per million output tokens, with throughput and TTFT beside), ' +
      'accuracy per scenario tag, and the Pareto front of accuracy against cost. `format=md` answers `text/markdown` fit to paste into a pull request or a wiki page; ' +
      '`format=csv` answers `text/csv` with the unit in each column name; `json` (the default) the report object.',
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps/{sweep_id}/report',
    input: SweepReportInputSchema,
    output: SweepReportOutputSchema,
    status: 200,
    query: ['format'],
    docs: { media: { 'text/markdown': 'with `format=md`: the report as Markdown', 'text/csv': 'with `format=csv`: the ranked table as CSV, the unit in each column name' } },
  },
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
