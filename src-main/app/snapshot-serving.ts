import type { SnapshotServing } from '../../shared';
import type { SnapshotLease } from '../snapshots/replays';
import { ProblemError } from './problem-error';
import type { SnapshotService } from './snapshots';
import { requireAppTenant } from './tenant-refusals';

/** Who holds a snapshot the app serves for people: what "in use by" names when a delete is refused. */
export const APP_SERVING_HOLDER = 'the Snapshots page (served as a Kubernetes API)';

export type SnapshotServingRegistry = {
  get(snapshotId: string): SnapshotServing | null;
  start(tenantId: string, snapshotId: string): Promise<SnapshotServing>;
  stop(tenantId: string, snapshotId: string): Promise<void>;
};

/**
 * The snapshots served from the app for people (one replay each, started and stopped from the
 * Snapshots page or the API). Built on the snapshot service's leases, so a served snapshot shows
 * as in use and its replay closes with the service.
 */
export function createSnapshotServing(snapshots: Pick<SnapshotService, 'has' | 'serve'>, now: () => Date = () => new Date()): SnapshotServingRegistry {
  const served = new Map<string, { lease: SnapshotLease; info: SnapshotServing }>();
  const starting = new Map<string, Promise<SnapshotServing>>();
  return {
    get: (snapshotId) => served.get(snapshotId)?.info ?? null,
    async start(tenantId, snapshotId) {
      requireAppTenant('snapshots', tenantId);
      const running = served.get(snapshotId);
      if (running) return running.info;
      let pending = starting.get(snapshotId);
      if (!pending) {
        pending = (async () => {
          if (!(await snapshots.has(snapshotId))) throw new ProblemError(404, 'snapshot_not_found', `no snapshot ${snapshotId}`);
          const lease = await snapshots.serve(snapshotId, APP_SERVING_HOLDER);
          const info: SnapshotServing = { snapshot_id: snapshotId, url: lease.url, kubeconfig: lease.kubeconfigPath, started_at: now().toISOString() };
          served.set(snapshotId, { lease, info });
          return info;
        })().finally(() => starting.delete(snapshotId));
        starting.set(snapshotId, pending);
      }
      return pending;
    },
    async stop(tenantId, snapshotId) {
      requireAppTenant('snapshots', tenantId);
      const running = served.get(snapshotId);
      if (!running) return;
      served.delete(snapshotId);
      await running.lease.close();
    },
  };
}

const registries = new WeakMap<object, SnapshotServingRegistry>();

/** The one registry of a snapshot service (the HTTP and IPC handlers share it). */
export function snapshotServingOf(snapshots: Pick<SnapshotService, 'has' | 'serve'>): SnapshotServingRegistry {
  let registry = registries.get(snapshots);
  if (!registry) registries.set(snapshots, (registry = createSnapshotServing(snapshots)));
  return registry;
}
