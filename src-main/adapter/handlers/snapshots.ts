import { snapshotServingOf } from '../../app/snapshot-serving';
import type { SnapshotService } from '../../app/snapshots';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

type SnapshotOperation =
  | 'recordSnapshot'
  | 'listSnapshots'
  | 'getSnapshot'
  | 'exportSnapshot'
  | 'importSnapshot'
  | 'deleteSnapshot'
  | 'getSnapshotServing'
  | 'serveSnapshot'
  | 'stopServingSnapshot';

/** The recorded-cluster operations (design §11), over the snapshot service. */
export function snapshotHandlers(snapshots: SnapshotService): Pick<OperationHandlers, SnapshotOperation> {
  const serving = snapshotServingOf(snapshots);
  return {
    // The service checks the tenant, then the body (recording reads a kubeconfig on this machine).
    recordSnapshot: (ctx, input) => snapshots.record(ctx.tenantId, input, { signal: ctx.signal }),
    async listSnapshots(_ctx, input) {
      parseInput('listSnapshots', input);
      return snapshots.list();
    },
    async getSnapshot(_ctx, input) {
      return snapshots.get(parseInput('getSnapshot', input).snapshot_id);
    },
    async exportSnapshot(_ctx, input) {
      return snapshots.export(parseInput('exportSnapshot', input).snapshot_id);
    },
    importSnapshot: (ctx, input) => snapshots.import(ctx.tenantId, input),
    async deleteSnapshot(ctx, input) {
      await snapshots.delete(ctx.tenantId, parseInput('deleteSnapshot', input).snapshot_id);
      return undefined;
    },
    async getSnapshotServing(_ctx, input) {
      const id = parseInput('getSnapshotServing', input).snapshot_id;
      await snapshots.get(id);
      return { serving: serving.get(id) };
    },
    serveSnapshot: (ctx, input) => serving.start(ctx.tenantId, parseInput('serveSnapshot', input).snapshot_id),
    async stopServingSnapshot(ctx, input) {
      const id = parseInput('stopServingSnapshot', input).snapshot_id;
      await serving.stop(ctx.tenantId, id);
      // Nothing to stop is not an error, but an unknown snapshot is one (404), as for every snapshot route.
      await snapshots.get(id);
      return undefined;
    },
  };
}
