import type { JobKind } from './jobs';

/** Every HTTP path of design §3, in one place for the server, the CLI, the HTTP bridge and tests. */
export const API_PATHS = {
  health: '/healthz',
  estimates: '/v1/estimates',
  jobs: '/v1/jobs',
  job: (id: string) => `/v1/jobs/${encodeURIComponent(id)}`,
  jobCancel: (id: string) => `/v1/jobs/${encodeURIComponent(id)}/cancel`,
  jobEvents: (id: string) => `/v1/jobs/${encodeURIComponent(id)}/events`,
  catalog: '/v1/catalog/marketplace-models',
  llmModels: '/v1/llm/models',
  metricsSummary: '/v1/metrics/summary',
  openapi: '/v1/openapi.json',
} as const;

/** POST routes that create jobs. `successor` is set on deprecated aliases. */
export const JOB_ROUTES: readonly { path: string; kind: JobKind; successor?: string }[] = [
  { path: '/v1/jobs/agentic-agent', kind: 'agentic-agent' },
  { path: '/v1/jobs/benchmark', kind: 'benchmark' },
  { path: '/v1/jobs/llm-instance', kind: 'llm-instance' },
  { path: '/v1/jobs/llmserver-instance', kind: 'llm-instance', successor: '/v1/jobs/llm-instance' },
  { path: '/v1/jobs/llmserver', kind: 'llm-instance', successor: '/v1/jobs/llm-instance' },
  { path: '/v1/jobs/agent', kind: 'agentic-agent', successor: '/v1/jobs/agentic-agent' },
];

export function jobCreatePath(kind: JobKind): string {
  return `/v1/jobs/${kind}`;
}

export const CATALOG_ALIASES = ['/v1/models/marketplace'] as const;
export const LLM_MODELS_ALIASES = ['/v1/llmserver/models', '/v1/models/llmserver'] as const;
