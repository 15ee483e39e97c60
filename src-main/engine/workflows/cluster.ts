import type { ValidationIssue } from '../../../shared';
import { SnapshotNotFoundError, type SnapshotLease, type SnapshotLeases } from '../../snapshots/replays';
import { JobFailure, type JobContext } from '../types';

/**
 * The cluster a job's agent reads: a kubeconfig (a live cluster), or a recorded snapshot that the
 * job serves as a read-only Kubernetes API for as long as it runs (design §11). Every agent gets a
 * kubeconfig path either way, so builtin, holmes, k8sgpt and registered drivers, in this process
 * or as a stdio driver, all read the snapshot through their own Kubernetes clients.
 */

/** Submit-time check of `snapshot`: it must be stored (the job would otherwise fail later). */
export async function snapshotIssues(leases: SnapshotLeases | undefined, snapshotId: string | undefined): Promise<ValidationIssue[]> {
  if (snapshotId === undefined) return [];
  if (!leases) return [{ path: 'snapshot', message: 'this benchdesk cannot serve snapshots' }];
  return (await leases.has(snapshotId)) ? [] : [{ path: 'snapshot', message: `no snapshot ${snapshotId}: list them with benchdesk snapshot list` }];
}

/**
 * Serves a snapshot while `fn` runs and stops it afterwards (success, failure or cancel): a timed
 * `snapshot.serve` step, then `snapshot.stop`. The suites run each scenario inside one of these.
 */
export async function withSnapshotServed<T>(ctx: JobContext, leases: SnapshotLeases | undefined, snapshotId: string, fn: (lease: SnapshotLease) => Promise<T>): Promise<T> {
  if (!leases) throw new JobFailure('snapshot_unavailable', 'this benchdesk cannot serve snapshots');
  let lease: SnapshotLease;
  try {
    lease = await ctx.step('snapshot.serve', () => leases.serve(snapshotId, `job ${ctx.job.job_id}`), { snapshot_id: snapshotId });
  } catch (err) {
    if (err instanceof SnapshotNotFoundError) throw new JobFailure('snapshot_not_found', `${err.message} (it was deleted after the job was accepted)`, { cause: err });
    throw err;
  }
  try {
    return await fn(lease);
  } finally {
    await lease.close();
    await ctx.info('snapshot.stop', `stopped serving snapshot ${snapshotId}`, { snapshot_id: snapshotId }).catch(() => undefined);
  }
}

/** Runs `fn` with the kubeconfig the request names: its own, or its snapshot's while it is served. */
export async function withRequestCluster<T>(
  ctx: JobContext,
  leases: SnapshotLeases | undefined,
  request: { kubeconfig?: string | undefined; snapshot?: string | undefined },
  fn: (kubeconfig: string | undefined) => Promise<T>,
): Promise<T> {
  if (request.snapshot === undefined) return fn(request.kubeconfig);
  return withSnapshotServed(ctx, leases, request.snapshot, (lease) => fn(lease.kubeconfigPath));
}
