import type {
  CatalogResponse,
  CostEstimationResponse,
  Health,
  JobAccepted,
  JobEvent,
  JobEventsResponse,
  JobKind,
  JobListResponse,
  JobRecord,
  JobStatus,
  LlmModelsResponse,
  MetricsSummary,
} from '../../shared';

/**
 * The application's operations, transport-agnostic. The fastify routes (src-main/api) and the
 * Electron IPC handlers (src-main/electron) both call this, so HTTP and IPC behave identically.
 * Inputs are raw (unknown) where they come from outside and are validated inside with the shared
 * schemas; failures are thrown as ProblemError.
 */
export interface BenchdeskService {
  health(): Health;
  estimate(body: unknown): Promise<CostEstimationResponse>;
  /** Validates `body` with the kind's schema and submit-time checks; durable before it resolves. */
  createJob(
    tenantId: string,
    kind: JobKind,
    body: unknown,
    idempotencyKey?: string,
  ): Promise<{ accepted: JobAccepted; replayed: boolean }>;
  listJobs(tenantId: string, query: unknown): Promise<JobListResponse>;
  getJob(tenantId: string, jobId: string): Promise<JobRecord>;
  /** A serving job's per-request records as JSONL or CSV text (404 for another tenant's job or another kind). */
  getJobRequests(tenantId: string, jobId: string, format: 'jsonl' | 'csv'): Promise<string>;
  cancelJob(tenantId: string, jobId: string): Promise<{ job_id: string; status: JobStatus }>;
  getJobEvents(tenantId: string, jobId: string, after?: number): Promise<JobEventsResponse>;
  /** Live events of one tenant's job (or all its jobs with jobId null); returns unsubscribe. */
  subscribe(tenantId: string, jobId: string | null, listener: (event: JobEvent) => void): () => void;
  /**
   * Recent events of the tenant after `after` (feed resume); `complete` is false if some are gone
   * (`oldestSeq`: the oldest the server still holds; `newestSeq`: the newest it published).
   */
  replayFeed(tenantId: string, after: number): { events: JobEvent[]; complete: boolean; oldestSeq: number | null; newestSeq: number };
  /** The highest event seq this server may have handed out: a resume position above it is unknown here. */
  lastSeq(): number;
  listCatalog(): CatalogResponse;
  listLlmModels(tenantId: string, query: unknown): Promise<LlmModelsResponse>;
  metricsSummary(tenantId: string, query: unknown): Promise<MetricsSummary>;
}
