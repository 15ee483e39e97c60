import type { Health } from '../../shared';
import { hasBrowserToken, useApi } from '../bridge';
import { useHealth } from '../queries/health';

const AUTH_NOTES: Record<NonNullable<Health['auth']>, string> = {
  enabled: 'Requests need an API token.',
  disabled: 'Authentication is off: any local process can use the API.',
  unconfigured: 'No token configured: /v1 routes answer 404 until one is set (SERVICE_API_TOKENS).',
};

function formatTime(ms: number): string {
  return ms ? new Date(ms).toLocaleTimeString() : '—';
}

export function HealthPanel() {
  const api = useApi();
  const health = useHealth();
  const state = health.isError ? 'error' : health.isPending ? 'checking' : 'ok';

  return (
    <section className="panel" aria-labelledby="health-title" data-testid="health-panel">
      <header className="panel-head">
        <h2 id="health-title">API health</h2>
        <span data-testid="health-status" data-state={state} className={`badge badge-${state}`}>
          {state}
        </span>
        <button type="button" className="button" onClick={() => void health.refetch()} disabled={health.isFetching}>
          {health.isFetching ? 'Checking…' : 'Check now'}
        </button>
      </header>

      {health.isError ? (
        <div className="problem" role="alert" data-testid="health-error">
          <p className="problem-title">
            {health.error.problem.title} <span className="muted">({health.error.problem.status || 'no status'})</span>
          </p>
          <p>{health.error.problem.detail}</p>
          <p className="muted">
            code <code>{health.error.problem.code}</code>
          </p>
        </div>
      ) : null}

      <dl className="facts">
        <dt>Status</dt>
        <dd>{health.data?.status ?? '—'}</dd>
        <dt>Version</dt>
        <dd data-testid="health-version">{health.data?.version ?? '—'}</dd>
        <dt>Auth</dt>
        <dd data-testid="health-auth">
          {health.data?.auth ?? (health.data ? 'not reported' : '—')}
          {health.data?.auth ? <span className="note">{AUTH_NOTES[health.data.auth]}</span> : null}
        </dd>
        <dt>Transport</dt>
        <dd>
          <span data-testid="health-transport">{api.transport}</span>
          <span className="note">
            {api.transport === 'electron'
              ? 'IPC through the preload bridge.'
              : `HTTP to ${window.location.origin}${hasBrowserToken() ? ' with a session token.' : ' without a token (open the UI with #token=…).'}`}
          </span>
        </dd>
        <dt>Last checked</dt>
        <dd>{formatTime(health.dataUpdatedAt)}</dd>
      </dl>
    </section>
  );
}
