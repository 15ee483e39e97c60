import type { JobEvent, JobRecord } from '../shared';

/** A job event as the API sends it. */
export function ev(seq: number, event: string, status: JobEvent['status'] = 'info', extra: Partial<JobEvent> = {}): JobEvent {
  return {
    seq,
    job_id: extra.job_id ?? 'job-1',
    event,
    status,
    message: null,
    duration_ms: null,
    error_type: null,
    labels: {},
    recorded_at: new Date(Date.UTC(2026, 0, 1, 12, 0, 0, seq * 10)).toISOString(),
    ...extra,
  };
}

/** A running agentic-agent job record. */
export function agentJob(id: string, status: JobRecord['status'] = 'running'): JobRecord {
  const at = '2026-01-01T12:00:00.000Z';
  return {
    job_id: id,
    tenant_id: 'default',
    kind: 'agentic-agent',
    status,
    message: status,
    created_at: at,
    started_at: at,
    finished_at: null,
    updated_at: at,
    request: { question: 'q', model: 'm', agent: 'builtin', backend_url: 'http://127.0.0.1:1', backend_type: 'llmserver', backend_warmup: true, backend_warmup_timeout: 300 },
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources: null,
  };
}
