import { Page } from '../../components/Page';
import { useSnapshots } from '../../queries/snapshots';
import { SnapshotBrowser } from './SnapshotBrowser';

/** One recorded cluster, browsable: `#/snapshots/<id>`. */
export function SnapshotPage({ snapshotId }: { snapshotId: string }) {
  const snapshots = useSnapshots();
  const summary = snapshots.data?.snapshots.find((s) => s.snapshot_id === snapshotId);
  return (
    <Page title={summary?.name ?? 'Snapshot'} subtitle={<span className="code-id">{snapshotId}</span>} testId="snapshot-page">
      <SnapshotBrowser snapshotId={snapshotId} />
    </Page>
  );
}
