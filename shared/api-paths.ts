import { JOB_KINDS, type JobKind } from './jobs';
import { JOB_KIND_ALIASES, NON_OPERATION_ROUTES, OPERATIONS, operationPath } from './operations';

/** Path helpers over the operation table, for code and tests that speak HTTP directly. */
export const API_PATHS = {
  health: OPERATIONS.getHealth.path,
  estimates: OPERATIONS.createEstimate.path,
  jobs: OPERATIONS.listJobs.path,
  job: (id: string) => operationPath('getJob', { job_id: id }),
  jobCancel: (id: string) => operationPath('cancelJob', { job_id: id }),
  jobEvents: (id: string) => operationPath('getJobEvents', { job_id: id }),
  events: OPERATIONS.streamEvents.path,
  catalog: OPERATIONS.listCatalog.path,
  llmModels: OPERATIONS.listLlmModels.path,
  metricsSummary: OPERATIONS.getMetricsSummary.path,
  openapi: NON_OPERATION_ROUTES[0]?.path ?? '/v1/openapi.json',
  sweeps: OPERATIONS.listSweeps.path,
  sweep: (id: string) => operationPath('getSweep', { sweep_id: id }),
  sweepCancel: (id: string) => operationPath('cancelSweep', { sweep_id: id }),
  sweepReport: (id: string) => operationPath('getSweepReport', { sweep_id: id }),
} as const;

export function jobCreatePath(kind: JobKind): string {
  return operationPath('createJob', { kind });
}

/** POST routes that create jobs: one per kind, plus the deprecated aliases (`successor` set). */
export const JOB_ROUTES: readonly { path: string; kind: JobKind; successor?: string }[] = [
  ...JOB_KINDS.map((kind) => ({ path: jobCreatePath(kind), kind })),
  ...JOB_KIND_ALIASES,
];

export const CATALOG_ALIASES = OPERATIONS.listCatalog.aliases;
export const LLM_MODELS_ALIASES = OPERATIONS.listLlmModels.aliases;
