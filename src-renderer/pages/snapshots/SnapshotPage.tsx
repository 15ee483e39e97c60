import { useState } from 'react';
import { useLocation } from 'wouter';
import type { SnapshotSummary } from '../../../shared';
import { useApi } from '../../bridge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatAbsolute, formatFileSize, formatCount } from '../../lib/format';
import { saveText } from '../../lib/save-file';
import { useDeleteSnapshot, useSnapshot } from '../../queries/snapshots';
import { hrefOf, jobPath, ROUTES } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { SnapshotBrowser } from '../suites/SnapshotBrowser';
import { ClusterProblem } from './cluster-problem';
import { ServePanel } from './ServePanel';
import { usesOf } from './snapshot-facts';
import './snapshots.css';

/** Where it came from, what it holds, who uses it. */
function Facts({ s }: { s: SnapshotSummary }) {
  const c = s.counts;
  return (
    <dl className="kv snapshot-facts" data-testid="snapshot-facts">
      <dt>Recorded</dt>
      <dd>
        <RelativeTime iso={s.recorded_at} /> <span className="muted">({formatAbsolute(s.recorded_at)})</span>
      </dd>
      <dt>Cluster</dt>
      <dd>
        <span className="code-id">{s.source}</span>
        {s.kubernetes_version ? <span className="muted"> · Kubernetes {s.kubernetes_version}</span> : null}
      </dd>
      <dt>Namespaces</dt>
      <dd>{s.namespaces.length > 0 ? s.namespaces.join(', ') : <span className="muted">none</span>}</dd>
      <dt>Holds</dt>
      <dd>
        {formatCount(c.pods, 'pod')}, {formatCount(c.deployments, 'deployment')}, {formatCount(c.nodes, 'node')}, {formatCount(c.events, 'event')}, {formatCount(c.logs, 'container log')},{' '}
        {formatCount(c.services, 'service')}
      </dd>
      <dt>Size</dt>
      <dd className="num">{formatFileSize(s.size_bytes)}</dd>
      <dt>Origin</dt>
      <dd>
        {s.origin === 'recorded' ? 'recorded here' : 'imported'} <RelativeTime iso={s.stored_at} />
      </dd>
      <dt>Used by</dt>
      <dd data-testid="snapshot-used-by">
        {s.used_by.length === 0 ? (
          <span className="muted">nothing: it can be deleted</span>
        ) : (
          usesOf(s.used_by).map((u, i) => (
            <span key={u.text}>
              {i > 0 ? ', ' : ''}
              {u.kind === 'job' ? <a href={hrefOf(jobPath(u.id))}>{u.text}</a> : u.kind === 'suite' ? <a href={hrefOf(ROUTES.suites)}>{u.text}</a> : u.text}
            </span>
          ))
        )}
      </dd>
    </dl>
  );
}

/** Run an agent or a benchmark on it (Launch with the snapshot chosen), or a suite whose scenarios use it. */
function RunPanel({ s }: { s: SnapshotSummary }) {
  const [, navigate] = useLocation();
  const prefill = useUiStore((st) => st.prefillLaunch);
  const prefillSuite = useUiStore((st) => st.prefillSuiteLaunch);
  const suites = usesOf(s.used_by).filter((u) => u.kind === 'suite');
  const launch = (kind: 'benchmark' | 'agentic-agent') => {
    prefill(kind, { cluster: 'snapshot', snapshot: s.snapshot_id }, `the snapshot ${s.name}`);
    navigate(ROUTES.launch);
  };
  return (
    <Panel title="Run on it" testId="snapshot-run">
      <p className="muted note-small">The job serves the snapshot read-only while it runs and hands the agent a kubeconfig for it: every run reads the same cluster.</p>
      <div className="form-actions snapshot-run-actions">
        <button type="button" className="button button-primary" onClick={() => launch('benchmark')} data-testid="snapshot-run-benchmark">
          Benchmark on it…
        </button>
        <button type="button" className="button" onClick={() => launch('agentic-agent')} data-testid="snapshot-run-agent">
          Ask an agent on it…
        </button>
        {suites.map((u) => (
          <button
            key={u.id}
            type="button"
            className="button"
            onClick={() => {
              prefillSuite(u.id, null, `the snapshot ${s.name}`);
              navigate(ROUTES.launch);
            }}
            data-testid={`snapshot-run-suite-${u.id}`}
          >
            Run suite {u.id}…
          </button>
        ))}
      </div>
    </Panel>
  );
}

/** Export and delete (a snapshot in use is refused, saying by what). */
function useSnapshotActions(s: SnapshotSummary | undefined) {
  const api = useApi();
  const [, navigate] = useLocation();
  const remove = useDeleteSnapshot();
  const [exported, setExported] = useState<string | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const exportIt = async () => {
    if (!s) return;
    setExportError(null);
    try {
      const doc = await api.exportSnapshot({ snapshot_id: s.snapshot_id });
      const saved = await saveText(api, `${s.snapshot_id}.snapshot.json`, `${JSON.stringify(doc, null, 2)}\n`, 'application/json');
      setExported(saved);
    } catch (err) {
      setExportError(err);
    }
  };
  const deleteIt = (onDone: () => void) => {
    if (!s) return;
    remove.mutate(s.snapshot_id, {
      onSuccess: () => {
        onDone();
        navigate(ROUTES.snapshots);
      },
    });
  };
  return { remove, exported, exportError, exportIt, deleteIt };
}

/** One recorded cluster: `#/snapshots/<id>`: what it is, run on it, serve it, export or delete it, and browse it. */
export function SnapshotPage({ snapshotId }: { snapshotId: string }) {
  const summary = useSnapshot(snapshotId);
  const s = summary.data;
  const actions = useSnapshotActions(s);
  const [confirmDelete, setConfirmDelete] = useState(false);
  if (summary.isError && summary.error.status === 404) {
    return (
      <Page title="Snapshot" subtitle={<a href={hrefOf(ROUTES.snapshots)}>← All snapshots</a>} testId="snapshot-page">
        <EmptyState title="No such snapshot" testId="snapshot-error" action={<a className="button" href={hrefOf(ROUTES.snapshots)}>Open the Snapshots list</a>}>
          <p>{summary.error.problem.detail}: it may have been deleted, or the link is wrong.</p>
        </EmptyState>
      </Page>
    );
  }
  return (
    <Page
      title={s?.name ?? 'Snapshot'}
      subtitle={
        <>
          <a href={hrefOf(ROUTES.snapshots)}>← All snapshots</a> · <span className="code-id">{snapshotId}</span>
        </>
      }
      testId="snapshot-page"
      actions={
        <>
          <button type="button" className="button" onClick={() => void actions.exportIt()} disabled={!s} data-testid="snapshot-export">
            Export
          </button>
          <button type="button" className="button button-danger" onClick={() => setConfirmDelete(true)} disabled={!s} data-testid="snapshot-delete">
            Delete…
          </button>
        </>
      }
    >
      {summary.isError ? <ErrorState error={summary.error} onRetry={() => void summary.refetch()} /> : null}
      {actions.exported ? <Notice tone="ok" testId="snapshot-exported">Exported to {actions.exported}.</Notice> : null}
      {actions.exportError ? <ErrorState error={actions.exportError} /> : null}
      {!s ? (
        summary.isPending ? <Loading height={160} label="Loading the snapshot…" /> : null
      ) : (
        <>
          {s.warnings.length > 0 ? (
            <Notice tone="warn" testId="snapshot-warnings">
              <p>
                <strong>{formatCount(s.warnings.length, 'warning')}</strong> about what this snapshot says (an agent may be misled by it):
              </p>
              <ul>
                {s.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </Notice>
          ) : null}
          <div className="snapshot-top">
            <Panel title="About this snapshot">
              <Facts s={s} />
            </Panel>
            <div className="stack">
              <RunPanel s={s} />
              <ServePanel snapshotId={s.snapshot_id} />
            </div>
          </div>
        </>
      )}
      <Panel title="Browse it as kubectl would have seen it">
        <SnapshotBrowser snapshotId={snapshotId} />
      </Panel>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${s?.name ?? 'this snapshot'}?`}
        confirmLabel="Delete"
        tone="danger"
        busy={actions.remove.isPending}
        onCancel={() => {
          setConfirmDelete(false);
          actions.remove.reset();
        }}
        onConfirm={() => actions.deleteIt(() => setConfirmDelete(false))}
        testId="snapshot-delete-confirm"
      >
        <p>Its file is removed from the data directory. Jobs that ran on it keep their results; they cannot be re-run on it.</p>
        {actions.remove.isError ? <ClusterProblem error={actions.remove.error} testId="snapshot-delete-error" /> : null}
      </ConfirmDialog>
    </Page>
  );
}
