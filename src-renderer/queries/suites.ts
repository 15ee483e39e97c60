import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RecordSnapshotInput, ScoreAnswerOutput, SnapshotSummary, Suite, SuiteList } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys } from './keys';

/** The suites of this install (the Suites page). */
export function useSuites(enabled = true) {
  const api = useApi();
  return useQuery<SuiteList, BenchdeskApiError>({ queryKey: queryKeys.suites, queryFn: () => api.listSuites({}), staleTime: 30_000, enabled });
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

/**
 * Every suite with its scenarios (the same cache entries as useSuite), read only when `enabled`:
 * the job page looks up the scenario an agent job asked.
 */
export function useAllSuites(enabled: boolean): { suites: Suite[]; isPending: boolean; error: Error | null } {
  const api = useApi();
  const list = useSuites(enabled);
  const ids = enabled ? (list.data?.suites ?? []).map((s) => s.suite_id) : [];
  const details = useQueries({
    queries: ids.map((id) => ({ queryKey: queryKeys.suite(id), queryFn: (): Promise<Suite> => api.getSuite({ suite_id: id }), staleTime: 60_000 })),
  });
  return {
    suites: details.flatMap((d) => (d.data ? [d.data] : [])),
    isPending: enabled && (list.isPending || details.some((d) => d.isPending)),
    error: list.error ?? details.find((d) => d.error)?.error ?? null,
  };
}

/** A finished job's answer scored against a scenario by the rules (POST /v1/suites/{id}/score); it does not change, so it is read once. */
export function useAnswerScore(jobId: string, input: { suite_id: string; scenario_id: string; answer: string } | null) {
  const api = useApi();
  return useQuery<ScoreAnswerOutput, BenchdeskApiError>({
    queryKey: queryKeys.answerScore(jobId, input?.suite_id ?? '', input?.scenario_id ?? ''),
    queryFn: () => api.scoreAnswer(input ?? { suite_id: '', scenario_id: '', answer: '' }),
    enabled: input !== null,
    staleTime: Infinity,
  });
}
