import { useQuery } from '@tanstack/react-query';
import type { SnapshotDocument, SnapshotList } from '../../shared';
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
