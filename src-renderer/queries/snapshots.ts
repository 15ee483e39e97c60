import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SnapshotDocument, SnapshotList, SnapshotServing, SnapshotServingState, SnapshotSummary } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys } from './keys';

/** The recorded clusters of this install (the Launch form's picker, the snapshot browser). */
export function useSnapshots() {
  const api = useApi();
  return useQuery<SnapshotList, BenchdeskApiError>({
    queryKey: queryKeys.snapshots,
    queryFn: () => api.listSnapshots({}),
    staleTime: 30_000,
  });
}

/** One snapshot's whole document; a snapshot never changes, so it is read once. */
export function useSnapshotDocument(snapshotId: string) {
  const api = useApi();
  return useQuery<SnapshotDocument, BenchdeskApiError>({
    queryKey: queryKeys.snapshotDocument(snapshotId),
    queryFn: () => api.exportSnapshot({ snapshot_id: snapshotId }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export const snapshotKeys = {
  one: (id: string) => ['snapshots', 'one', id] as const,
  serving: (id: string) => ['snapshots', 'serving', id] as const,
};

/** One snapshot's summary (counts, source, warnings, who uses it). */
export function useSnapshot(snapshotId: string) {
  const api = useApi();
  return useQuery<SnapshotSummary, BenchdeskApiError>({
    queryKey: snapshotKeys.one(snapshotId),
    queryFn: () => api.getSnapshot({ snapshot_id: snapshotId }),
    staleTime: 10_000,
  });
}

/** Whether the app serves the snapshot as a Kubernetes API now (its URL and kubeconfig). */
export function useSnapshotServing(snapshotId: string) {
  const api = useApi();
  return useQuery<SnapshotServingState, BenchdeskApiError>({
    queryKey: snapshotKeys.serving(snapshotId),
    queryFn: () => api.getSnapshotServing({ snapshot_id: snapshotId }),
  });
}

/** Starts or stops serving: the summary's "used by" changes with it. */
export function useServeSnapshot(snapshotId: string) {
  const api = useApi();
  const qc = useQueryClient();
  const settle = () => void qc.invalidateQueries({ queryKey: queryKeys.snapshots });
  const start = useMutation<SnapshotServing, BenchdeskApiError>({
    mutationFn: () => api.serveSnapshot({ snapshot_id: snapshotId }),
    onSuccess: (serving) => {
      qc.setQueryData<SnapshotServingState>(snapshotKeys.serving(snapshotId), { serving });
      settle();
    },
  });
  const stop = useMutation<undefined, BenchdeskApiError>({
    mutationFn: () => api.stopServingSnapshot({ snapshot_id: snapshotId }),
    onSuccess: () => {
      qc.setQueryData<SnapshotServingState>(snapshotKeys.serving(snapshotId), { serving: null });
      settle();
    },
  });
  return { start, stop };
}

export function useDeleteSnapshot() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<undefined, BenchdeskApiError, string>({
    mutationFn: (snapshotId) => api.deleteSnapshot({ snapshot_id: snapshotId }),
    // The list only: the deleted snapshot's own queries (its page is being left) would answer 404.
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.snapshots, exact: true }),
  });
}

export function useImportSnapshot() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<SnapshotSummary, BenchdeskApiError, unknown>({
    mutationFn: (doc) => api.importSnapshot(doc as Parameters<typeof api.importSnapshot>[0]),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.snapshots }),
  });
}
