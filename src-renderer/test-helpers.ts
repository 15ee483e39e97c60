import { APP_SETTINGS_DEFAULTS, type AppSettings, type JobEvent, type JobRecord, type SettingsResponse } from '../shared';

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
    request: { question: 'q', model: 'm', agent: 'builtin', backend_url: 'http://127.0.0.1:1', backend_type: 'llmserver', backend_api: 'auto', backend_warmup: true, backend_warmup_timeout: 300 },
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources: null,
  };
}

/** GET /v1/settings as a headless server answers it: these settings over the defaults, with or without a marketplace key. */
export function settingsResponseOf(patch: Partial<AppSettings>, key: boolean): SettingsResponse {
  return {
    settings: { ...APP_SETTINGS_DEFAULTS, ...patch },
    sources: {},
    effects: {},
    restart_required: [],
    access: { tenant_id: 'default', can_change: true },
    environment: {
      data_dir: '/d', settings_file: '/d/settings.json', api_url: 'http://127.0.0.1:8080', api_host: '127.0.0.1', api_port: 8080, auth: 'enabled', kubeconfig_env: '/k',
      marketplace_key: { configured: key, source: key ? 'env' : null, hint: key ? 'abcd' : null, environment_key: key, api_url: 'https://console.vast.ai/api/v0', can_store: false },
    },
  };
}
