import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RecordSnapshotInput, ScoreAnswerOutput, SnapshotSummary, Suite, SuiteList } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys } from './keys';

/** The suites of this install (the Suites page). */
export function useSuites() {
  const api = useApi();
  return useQuery<SuiteList, BenchdeskApiError>({ queryKey: queryKeys.suites, queryFn: () => api.listSuites({}), staleTime: 30_000 });
}

/** One suite with its scenarios (the Suites page, a suite run's page). */
export function useSuite(suiteId: string | null) {
  const api = useApi();
  return useQuery<Suite, BenchdeskApiError>({
    queryKey: queryKeys.suite(suiteId ?? ''),
    queryFn: () => api.getSuite({ suite_id: suiteId ?? '' }),
    enabled: suiteId !== null && suiteId !== '',
    staleTime: 60_000,
  });
}

export function useImportSuite() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Suite, BenchdeskApiError, unknown>({
    mutationFn: (doc) => api.importSuite(doc as Parameters<typeof api.importSuite>[0]),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.suites });
      void qc.invalidateQueries({ queryKey: queryKeys.snapshots });
    },
  });
}

export function useDeleteSuite() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<undefined, BenchdeskApiError, string>({
    mutationFn: (suiteId) => api.deleteSuite({ suite_id: suiteId }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.suites }),
  });
}

/** Records a cluster through the server (bounded to 60 s there). */
export function useRecordSnapshot() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<SnapshotSummary, BenchdeskApiError, RecordSnapshotInput>({
    mutationFn: (input) => api.recordSnapshot(input),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.snapshots }),
  });
}

/** Scores an answer to one scenario by the rules, without a run (the Suites page's "Try an answer"). */
export function useScoreAnswer() {
  const api = useApi();
  return useMutation<ScoreAnswerOutput, BenchdeskApiError, { suite_id: string; scenario_id: string; answer: string }>({
    mutationFn: (input) => api.scoreAnswer(input),
  });
}
