import { useRef, useState, type ChangeEvent } from 'react';
import type { SnapshotSummary } from '../../../shared';
import { DataTable, type Column } from '../../components/DataTable';
import { RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatFileSize, formatCount } from '../../lib/format';
import { useImportSnapshot, useSnapshots } from '../../queries/snapshots';
import { hrefOf, snapshotPath } from '../../router/routes';
import { RecordCluster } from './RecordCluster';
import { countsLine } from './snapshot-facts';
import './snapshots.css';

const columns: Column<SnapshotSummary>[] = [
  {
    id: 'name',
    header: 'Snapshot',
    cell: (s) => (
      <span className="snapshot-name">
        <a href={hrefOf(snapshotPath(s.snapshot_id))} data-testid={`snapshot-link-${s.snapshot_id}`}>
          {s.name}
        </a>
        <span className="muted code-id">{s.snapshot_id}</span>
      </span>
    ),
    sortValue: (s) => s.name.toLowerCase(),
  },
  { id: 'recorded', header: 'Recorded', cell: (s) => <RelativeTime iso={s.recorded_at} />, sortValue: (s) => s.recorded_at },
  {
    id: 'source',
    header: 'Cluster',
    cell: (s) => (
      <span className="code-id snapshot-source" title={s.source}>
        {s.source}
      </span>
    ),
    sortValue: (s) => s.source,
  },
  {
    id: 'counts',
    header: 'Holds',
    cell: (s) => (
      <span className="snapshots-counts">
        <span>
          {formatCount(s.counts.pods, 'pod')} · {formatCount(s.counts.events, 'event')}
        </span>
        <span className="muted">
          {formatCount(s.counts.nodes, 'node')} · {formatCount(s.counts.logs, 'log')}
        </span>
      </span>
    ),
    sortValue: (s) => s.counts.pods,
  },
  { id: 'size', header: 'Size', align: 'right', cell: (s) => <span className="num">{formatFileSize(s.size_bytes)}</span>, sortValue: (s) => s.size_bytes },
  {
    id: 'use',
    header: 'Used by',
    cell: (s) => (s.used_by.length === 0 ? <span className="muted">nothing</span> : s.used_by.join(', ')),
    sortValue: (s) => s.used_by.length,
  },
  {
    id: 'warnings',
    header: 'Warnings',
    cell: (s) =>
      (s.warnings?.length ?? 0) === 0 ? (
        <span className="muted">none</span>
      ) : (
        <span className="badge badge-warn" title={s.warnings.join('\n')} data-testid={`snapshot-warnings-${s.snapshot_id}`}>
          {formatCount(s.warnings.length, 'warning')}
        </span>
      ),
    sortValue: (s) => s.warnings?.length ?? 0,
  },
];

/** Reads a chosen file as a snapshot document and imports it; says what is wrong with a bad one. */
function useImportFile() {
  const importSnapshot = useImportSnapshot();
  const [problem, setProblem] = useState<string | null>(null);
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setProblem(null);
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch {
      setProblem(`${file.name} is not JSON: choose a file written by Export (a benchdesk.snapshot/v1 document).`);
      return;
    }
    importSnapshot.mutate(doc, {
      onError: (err) => {
        const issues = err.problem.errors ?? [];
        setProblem(issues.length > 0 ? `${file.name} is not a valid snapshot: ${issues.slice(0, 5).map((i) => `${i.path || 'the document'}: ${i.message}`).join('; ')}` : err.message);
      },
    });
  };
  return { importSnapshot, problem, onFile };
}

/** Recorded clusters: the list, record one from a kubeconfig, import one; each opens on its own page. */
export function SnapshotsPage() {
  const snapshots = useSnapshots();
  const [recording, setRecording] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const { importSnapshot, problem, onFile } = useImportFile();
  const list = snapshots.data?.snapshots ?? [];
  return (
    <Page
      title="Snapshots"
      subtitle="Clusters recorded once, read-only: run agents and suites on exactly the same facts, browse them as kubectl would, or serve one to kubectl."
      testId="page-snapshots"
      actions={
        <div className="snapshots-actions">
          <button type="button" className="button button-primary" onClick={() => setRecording((r) => !r)} aria-expanded={recording} data-testid="snapshots-record">
            Record a cluster
          </button>
          <button type="button" className="button" onClick={() => fileInput.current?.click()} disabled={importSnapshot.isPending} data-testid="snapshots-import">
            {importSnapshot.isPending ? 'Importing…' : 'Import a snapshot'}
          </button>
          <input ref={fileInput} type="file" accept="application/json,.json" hidden onChange={(e) => void onFile(e)} data-testid="snapshots-import-file" />
        </div>
      }
    >
      {recording ? <RecordCluster onClose={() => setRecording(false)} /> : null}
      {problem ? (
        <Notice tone="error" testId="snapshots-import-error">
          {problem}
        </Notice>
      ) : null}
      {importSnapshot.isSuccess ? (
        <Notice tone="ok" testId="snapshots-import-done">
          Imported <a href={hrefOf(snapshotPath(importSnapshot.data.snapshot_id))}>{importSnapshot.data.name}</a> ({countsLine(importSnapshot.data)})
          {importSnapshot.data.warnings.length > 0 ? `, with ${formatCount(importSnapshot.data.warnings.length, 'warning')}: ${importSnapshot.data.warnings[0]}` : ''}.
        </Notice>
      ) : null}
      <Panel title={snapshots.isSuccess ? `Recorded clusters (${formatCount(list.length)})` : 'Recorded clusters'}>
        {snapshots.isError ? (
          <ErrorState error={snapshots.error} onRetry={() => void snapshots.refetch()} testId="snapshots-error" />
        ) : snapshots.isPending ? (
          <Loading height={200} label="Loading snapshots…" />
        ) : list.length === 0 ? (
          <EmptyState
            title="No snapshots yet"
            testId="snapshots-empty"
            action={
              <button type="button" className="button button-primary" onClick={() => setRecording(true)}>
                Record a cluster
              </button>
            }
          >
            <p>Record one from a kubeconfig (its current context), or import a file written by Export.</p>
          </EmptyState>
        ) : (
          <div className="table-x">
            <DataTable columns={columns} rows={list} rowKey={(s) => s.snapshot_id} initialSort={{ column: 'recorded', direction: 'desc' }} testId="snapshots-table" />
          </div>
        )}
      </Panel>
    </Page>
  );
}
