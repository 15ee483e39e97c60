import type { MarketplaceInstanceList } from '../../../shared';
import { useApi } from '../../bridge';
import { RelativeTime } from '../../components/Format';
import { Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { KIND_LABELS } from '../../lib/job';
import { useHealth } from '../../queries/health';
import { useJobList } from '../../queries/jobs';
import { useMarketplaceOutage } from '../../queries/outage';
import { useSettings } from '../../queries/settings';
import { useConnection } from '../../state/connection';
import { JobLink, jobModel } from './JobLink';

/** The last five failed jobs with their reason. */
export function RecentFailures() {
  const failed = useJobList({ status: 'failed' });
  const jobs = (failed.data?.pages[0]?.jobs ?? []).slice(0, 5);
  if (failed.isError) return <ErrorState error={failed.error} onRetry={() => void failed.refetch()} />;
  if (failed.isPending) return <Loading height={80} />;
  if (jobs.length === 0) return <EmptyState title="No failed jobs" testId="overview-no-failures" />;
  return (
    <ul className="failure-list" data-testid="overview-failures">
      {jobs.map((j) => (
        <li key={j.job_id} className="failure">
          <div className="failure-head">
            <JobLink job={j} />
            <span className="muted">{KIND_LABELS[j.kind]}</span>
            <span>{jobModel(j)}</span>
            {j.error_code ? <code className="failure-code">{j.error_code}</code> : null}
            <span className="failure-when">
              <RelativeTime iso={j.finished_at ?? j.updated_at} />
            </span>
          </div>
          <p className="failure-reason" data-testid="failure-reason">
            {j.error ?? j.message}
          </p>
        </li>
      ))}
    </ul>
  );
}

/** The API card's badge: the server heard or not (the live feed's signal), its health, and the marketplace behind it. */
function apiState(serverDown: boolean, health: ReturnType<typeof useHealth>, marketDown: boolean): { state: string; text: string } {
  if (serverDown || health.isError) return { state: 'error', text: 'not answering' };
  if (health.isPending) return { state: 'checking', text: 'checking' };
  if (health.data.status !== 'ok') return { state: 'warn', text: health.data.status };
  if (marketDown) return { state: 'warn', text: 'marketplace down' };
  return { state: 'ok', text: 'ok' };
}

/** The API: whether it (and the marketplace behind it) answers, its address, and a line for scripts. */
export function ApiPanel({ machines }: { machines: MarketplaceInstanceList | undefined }) {
  const api = useApi();
  const health = useHealth();
  const settings = useSettings();
  const serverDown = useConnection((s) => s.link === 'down');
  const downSince = useConnection((s) => s.downSince);
  const market = useMarketplaceOutage();
  const { state, text } = apiState(serverDown, health, market !== null);
  const address = api.transport === 'http' ? window.location.origin : (settings.data?.environment.api_url ?? '…');
  const tokenFile = settings.data ? `${settings.data.environment.data_dir}/api-token` : '<data dir>/api-token';
  // The api-token file exists only for the app's own token; tokens from SERVICE_API_TOKENS are the user's.
  const fromEnvOnly = health.data?.token_sources?.includes('environment') === true && !health.data.token_sources.includes('app_token');
  const tokenLine = fromEnvOnly ? 'TOKEN=$BENCHDESK_TOKEN   # a token of SERVICE_API_TOKENS' : `TOKEN=$(cat '${tokenFile}')`;
  return (
    <Panel
      title="API"
      testId="overview-api"
      actions={
        <span className={`badge badge-${state}`} data-testid="overview-api-state" data-state={state}>
          {text}
        </span>
      }
    >
      <dl className="kv">
        <dt>Address for scripts</dt>
        <dd>
          <code data-testid="overview-api-url">{address}</code>
        </dd>
        <dt>Version</dt>
        <dd>{health.data?.version ?? '—'}</dd>
        <dt>Authentication</dt>
        <dd>{health.data?.auth ?? '—'}</dd>
        {serverDown && downSince !== null ? (
          <>
            <dt>Server</dt>
            <dd className="api-problem" data-testid="overview-api-down">
              not answering since <RelativeTime iso={new Date(downSince).toISOString()} />; figures are frozen
            </dd>
          </>
        ) : null}
        <dt>Marketplace</dt>
        <dd data-testid="overview-api-marketplace" className={market ? 'api-problem' : undefined}>
          {market ? `not answering: ${market.problem.detail}` : machines?.note && machines.instances.length === 0 && /no marketplace key/.test(machines.note) ? 'no key configured' : machines ? 'answering' : '…'}
        </dd>
        {health.data?.reason ? (
          <>
            <dt>Attention</dt>
            <dd>{health.data.reason}</dd>
          </>
        ) : null}
      </dl>
      <p className="muted note-small">From a shell on this machine:</p>
      <pre className="snippet">{`${tokenLine}\ncurl -H "Authorization: Bearer $TOKEN" ${address}/v1/jobs\nbenchdesk jobs list --api-url ${address}`}</pre>
    </Panel>
  );
}

