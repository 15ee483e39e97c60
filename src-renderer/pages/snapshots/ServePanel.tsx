import { CopyButton } from '../../components/CopyButton';
import { RelativeTime } from '../../components/Format';
import { Panel } from '../../components/Page';
import { ErrorState, Loading } from '../../components/States';
import { useServeSnapshot, useSnapshotServing } from '../../queries/snapshots';
import { ClusterProblem } from './cluster-problem';

/**
 * Serve the snapshot as a read-only Kubernetes API (as `benchdesk snapshot serve` does): its
 * address and the kubeconfig path to copy, and a kubectl line ready to paste. It runs until
 * stopped here or the server stops; meanwhile the snapshot is in use.
 */
export function ServePanel({ snapshotId }: { snapshotId: string }) {
  const state = useSnapshotServing(snapshotId);
  const { start, stop } = useServeSnapshot(snapshotId);
  const serving = state.data?.serving ?? null;
  const kubectl = serving ? `KUBECONFIG=${serving.kubeconfig} kubectl get pods -A` : '';
  return (
    <Panel title="Serve it to kubectl" testId="snapshot-serve">
      {state.isError ? <ErrorState error={state.error} onRetry={() => void state.refetch()} /> : null}
      {state.isPending ? <Loading height={60} /> : null}
      {state.isSuccess && !serving ? (
        <>
          <p className="muted note-small">A read-only Kubernetes API on this machine (127.0.0.1) that kubectl, k9s or any agent can read with the kubeconfig it writes. Writes are refused.</p>
          <button type="button" className="button" onClick={() => start.mutate()} disabled={start.isPending} data-testid="snapshot-serve-start">
            {start.isPending ? 'Starting…' : 'Serve it'}
          </button>
        </>
      ) : null}
      {serving ? (
        <div data-testid="snapshot-serving">
          <dl className="kv">
            <dt>Address</dt>
            <dd>
              <code data-testid="snapshot-serving-url">{serving.url}</code> <span className="muted">since <RelativeTime iso={serving.started_at} /></span>
            </dd>
            <dt>Kubeconfig</dt>
            <dd className="serve-copy">
              <code data-testid="snapshot-serving-kubeconfig">{serving.kubeconfig}</code>
              <CopyButton text={serving.kubeconfig} label="Copy path" testId="snapshot-serving-copy" />
            </dd>
          </dl>
          <div className="serve-copy">
            <pre className="snippet">{kubectl}</pre>
            <CopyButton text={kubectl} label="Copy" testId="snapshot-serving-kubectl-copy" />
          </div>
          <button type="button" className="button" onClick={() => stop.mutate()} disabled={stop.isPending} data-testid="snapshot-serve-stop">
            {stop.isPending ? 'Stopping…' : 'Stop serving'}
          </button>
        </div>
      ) : null}
      {start.isError ? <ClusterProblem error={start.error} testId="snapshot-serve-error" /> : null}
      {stop.isError ? <ErrorState error={stop.error} /> : null}
    </Panel>
  );
}
