import type { ReactNode } from 'react';
import { Field } from '../../components/Field';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatRelative } from '../../lib/format';
import { useSnapshots } from '../../queries/snapshots';
import { hrefOf, snapshotPath } from '../../router/routes';
import '../suites/suites.css';

/**
 * Which cluster the agent reads: a live one through a kubeconfig, or a recorded snapshot that
 * the job serves as a read-only Kubernetes API while it runs (the same facts on every run).
 */
export function ClusterSource({
  cluster,
  snapshot,
  snapshotError,
  onChange,
  onBlur,
  kubeconfigField,
}: {
  cluster: 'live' | 'snapshot';
  snapshot: string;
  snapshotError: string | null;
  onChange: (patch: { cluster?: 'live' | 'snapshot'; snapshot?: string }) => void;
  onBlur: () => void;
  /** The kubeconfig input, shown for a live cluster. */
  kubeconfigField: ReactNode;
}) {
  return (
    <div className="cluster-source" data-testid="launch-cluster">
      <span className="cluster-source-label" aria-hidden="true">
        Cluster the agent reads
      </span>
      <ToggleGroup
        label="Cluster the agent reads"
        value={cluster}
        onChange={(value) => onChange({ cluster: value })}
        options={[
          { value: 'live', label: 'Live cluster (kubeconfig)', testId: 'cluster-live' },
          { value: 'snapshot', label: 'Recorded snapshot (replayed read-only)', testId: 'cluster-snapshot' },
        ]}
      />
      {cluster === 'live' ? kubeconfigField : <SnapshotPicker value={snapshot} error={snapshotError} onChange={(id) => onChange({ snapshot: id })} onBlur={onBlur} />}
    </div>
  );
}

function SnapshotPicker({ value, error, onChange, onBlur }: { value: string; error: string | null; onChange: (id: string) => void; onBlur: () => void }) {
  const snapshots = useSnapshots();
  const list = snapshots.data?.snapshots ?? [];
  const chosen = list.find((s) => s.snapshot_id === value);
  let hint: ReactNode = 'Served read-only while the job runs: every run sees the same cluster.';
  if (snapshots.isError) hint = null;
  else if (snapshots.isSuccess && list.length === 0) hint = 'No snapshots yet. Record one with `benchdesk snapshot record --name <name> --kubeconfig <path>`, or import one.';
  else if (chosen) {
    hint = (
      <>
        {chosen.counts.pods} pods, {chosen.counts.events} events from {chosen.source}, recorded {formatRelative(chosen.recorded_at)} ·{' '}
        <a href={hrefOf(snapshotPath(chosen.snapshot_id))}>browse it</a>
      </>
    );
  }
  const listError = snapshots.isError ? `Could not list the snapshots: ${snapshots.error.message}` : null;
  return (
    <div className="field">
      <Field label="Snapshot" hint={hint} error={error ?? listError}>
        <select value={value} onChange={(e) => onChange(e.target.value)} onBlur={onBlur} name="snapshot" disabled={!snapshots.isSuccess || list.length === 0} data-testid="launch-snapshot">
          <option value="">{snapshots.isPending ? 'Loading snapshots…' : list.length === 0 ? 'No snapshots' : 'Choose a snapshot…'}</option>
          {list.map((s) => (
            <option key={s.snapshot_id} value={s.snapshot_id}>
              {s.name} ({s.counts.pods} pods, {s.recorded_at.slice(0, 10)})
            </option>
          ))}
        </select>
      </Field>
      {snapshots.isError ? (
        <button type="button" className="button button-small" onClick={() => void snapshots.refetch()}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
