import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SweepList, SweepRecord, SweepReport, SweepRequestInput } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';

/**
 * Sweeps over the API. No polling: the live feed invalidates these keys at each of a sweep's
 * events (see live-feed.ts), so the matrix, the spend and the ranking follow pushed events.
 */
export const sweepKeys = {
  all: ['sweeps'] as const,
  list: ['sweeps', 'list'] as const,
  one: (id: string) => ['sweeps', 'one', id] as const,
  report: (id: string) => ['sweeps', 'report', id] as const,
};

export function useSweeps(enabled = true) {
  const api = useApi();
  return useQuery<SweepList, BenchdeskApiError>({ queryKey: sweepKeys.list, queryFn: ({ signal }) => api.listSweeps({}, { signal }), enabled });
}

export function useSweep(sweepId: string) {
  const api = useApi();
  return useQuery<SweepRecord, BenchdeskApiError>({ queryKey: sweepKeys.one(sweepId), queryFn: ({ signal }) => api.getSweep({ sweep_id: sweepId }, { signal }) });
}

export function useSweepReport(sweepId: string) {
  const api = useApi();
  return useQuery<SweepReport, BenchdeskApiError>({
    queryKey: sweepKeys.report(sweepId),
    queryFn: async ({ signal }) => (await api.getSweepReport({ sweep_id: sweepId, format: 'json' }, { signal })) as SweepReport,
    // Keeps the last table on screen while the next one loads: no jump at each event.
    placeholderData: (previous) => previous,
  });
}

export function useCreateSweep() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<{ sweep_id: string }, BenchdeskApiError, SweepRequestInput>({
    mutationFn: (request) => api.createSweep(request),
    onSuccess: () => void qc.invalidateQueries({ queryKey: sweepKeys.all }),
  });
}

export function useCancelSweep() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, BenchdeskApiError, string>({
    mutationFn: (sweepId) => api.cancelSweep({ sweep_id: sweepId }),
    onSettled: () => void qc.invalidateQueries({ queryKey: sweepKeys.all }),
  });
}
