import { z } from 'zod';

/**
 * A snapshot served from the app (the Snapshots page's "Serve"): a read-only Kubernetes API on
 * 127.0.0.1 that kubectl and agents read with the kubeconfig it wrote, until it is stopped or
 * the server stops. Jobs on a snapshot serve their own copy; this one is for people.
 */
export const SnapshotServingSchema = z.object({
  snapshot_id: z.string(),
  /** https://127.0.0.1:<port> */
  url: z.string(),
  /** Path of the kubeconfig for it on the server's machine (0600, removed when serving stops). */
  kubeconfig: z.string(),
  started_at: z.string(),
});
export type SnapshotServing = z.infer<typeof SnapshotServingSchema>;

export const SnapshotServingStateSchema = z.object({ serving: SnapshotServingSchema.nullable() });
export type SnapshotServingState = z.infer<typeof SnapshotServingStateSchema>;
