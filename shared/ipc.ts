import { z } from 'zod';
import { HealthSchema } from './health';
import {
  JobAcceptedSchema,
  JobEventSchema,
  JobEventsResponseSchema,
  JobKindSchema,
  JobListQuerySchema,
  JobListResponseSchema,
  JobRecordSchema,
  JobStatusSchema,
} from './jobs';
import { MetricsSummaryQuerySchema, MetricsSummarySchema } from './metrics';
import { CatalogResponseSchema, LlmModelsQuerySchema, LlmModelsResponseSchema } from './models';
import { ProblemSchema } from './problems';
import { CostEstimationRequestSchema, CostEstimationResponseSchema } from './requests';

const JobRefSchema = z.object({ job_id: z.string().min(1).max(128) }).strict();
const NoArgsSchema = z.undefined().or(z.object({}).strict());

/**
 * The IPC contract: one entry per operation, each a named method on `window.api`. Main validates
 * `req` with the schema before doing anything; the renderer may validate `res`. The same operations
 * exist over HTTP, so the browser-mode bridge implements this map with fetch.
 */
export const IPC_METHODS = {
  getHealth: { req: NoArgsSchema, res: HealthSchema },
  createEstimate: { req: CostEstimationRequestSchema, res: CostEstimationResponseSchema },
  createJob: {
    req: z
      .object({
        kind: JobKindSchema,
        // Validated in main with the kind's own schema (JOB_REQUEST_SCHEMAS), exactly as over HTTP.
        request: z.record(z.string(), z.unknown()),
        idempotency_key: z.string().min(1).max(255).optional(),
      })
      .strict(),
    res: JobAcceptedSchema,
  },
  listJobs: { req: JobListQuerySchema, res: JobListResponseSchema },
  getJob: { req: JobRefSchema, res: JobRecordSchema },
  cancelJob: { req: JobRefSchema, res: z.object({ job_id: z.string(), status: JobStatusSchema }) },
  getJobEvents: {
    req: z.object({ job_id: z.string().min(1).max(128), after: z.number().int().min(0).optional() }).strict(),
    res: JobEventsResponseSchema,
  },
  /** Start pushing `job:event` for one job (or all of the tenant's jobs with job_id null). */
  subscribeJobEvents: {
    req: z.object({ job_id: z.string().min(1).max(128).nullable() }).strict(),
    res: z.object({ subscribed: z.literal(true) }),
  },
  unsubscribeJobEvents: {
    req: z.object({ job_id: z.string().min(1).max(128).nullable() }).strict(),
    res: z.object({ subscribed: z.literal(false) }),
  },
  listCatalog: { req: NoArgsSchema, res: CatalogResponseSchema },
  listLlmModels: { req: LlmModelsQuerySchema, res: LlmModelsResponseSchema },
  getMetricsSummary: { req: MetricsSummaryQuerySchema, res: MetricsSummarySchema },
} as const;

export type IpcMethod = keyof typeof IPC_METHODS;
export const IPC_METHOD_NAMES = Object.keys(IPC_METHODS) as IpcMethod[];

export function ipcChannel(method: IpcMethod): string {
  return `benchdesk:${method}`;
}

/** Main → renderer push channel for job events. */
export const IPC_JOB_EVENT_CHANNEL = 'benchdesk:job-event';
export const IpcJobEventSchema = JobEventSchema;

/** What travels back over IPC: errors are data, so the renderer sees the same problem body as HTTP. */
export const IpcResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), problem: ProblemSchema }),
]);
export type IpcResult = z.infer<typeof IpcResultSchema>;

export type IpcRequest<M extends IpcMethod> = z.input<(typeof IPC_METHODS)[M]['req']>;
export type IpcResponse<M extends IpcMethod> = z.output<(typeof IPC_METHODS)[M]['res']>;

/** The bridge the renderer sees as `window.api`, derived from the map (no hand-kept .d.ts). */
export type BenchdeskApi = {
  [M in IpcMethod]: (req: IpcRequest<M>) => Promise<IpcResponse<M>>;
} & {
  /** Calls `listener` for each pushed job event; returns an unsubscribe function. */
  onJobEvent(listener: (event: z.output<typeof JobEventSchema>) => void): () => void;
  /** `electron` inside the app, `http` in browser mode. */
  readonly transport: 'electron' | 'http';
};

export class BenchdeskApiError extends Error {
  constructor(readonly problem: z.output<typeof ProblemSchema>) {
    super(problem.detail);
    this.name = 'BenchdeskApiError';
  }
}

export { JobRecordSchema };
