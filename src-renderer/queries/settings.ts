import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ApiTokenResponse,
  MarketplaceInstanceList,
  MarketplaceKeyTestResponse,
  ReleaseInstanceResponse,
  SettingsResponse,
  SettingsUpdate,
  SpendSummary,
  UpdateSettingsResponse,
} from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';

/** Query keys of the Overview, Models and Settings pages (none under ['jobs'], which the live feed patches). */
export const settingsKeys = {
  settings: ['settings'] as const,
  spend: ['spend'] as const,
  instances: ['instances'] as const,
};

export function useSettings() {
  const api = useApi();
  return useQuery<SettingsResponse, BenchdeskApiError>({
    queryKey: settingsKeys.settings,
    queryFn: ({ signal }) => api.getSettings({}, { signal }),
    staleTime: 30_000,
  });
}

export function useUpdateSettings() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<UpdateSettingsResponse, BenchdeskApiError, SettingsUpdate>({
    mutationFn: (patch) => api.updateSettings(patch),
    onSuccess: (data) => {
      qc.setQueryData<SettingsResponse>(settingsKeys.settings, data);
    },
  });
}

/** Spend today and this month; the server caches it, so a 15 s refresh is cheap. */
export function useSpend() {
  const api = useApi();
  return useQuery<SpendSummary, BenchdeskApiError>({
    queryKey: settingsKeys.spend,
    queryFn: ({ signal }) => api.getSpendSummary({}, { signal }),
    refetchInterval: 15_000,
  });
}

/** Rented machines (active, kept, orphaned); each refresh asks the marketplace, so not too often. */
export function useInstances() {
  const api = useApi();
  return useQuery<MarketplaceInstanceList, BenchdeskApiError>({
    queryKey: settingsKeys.instances,
    queryFn: ({ signal }) => api.listInstances({}, { signal }),
    refetchInterval: 30_000,
  });
}

/** Releases one machine; `force` is required for a machine of another benchdesk install. */
/**
 * `onReleased` is the mutation's own callback, not one passed to mutate(): it runs even when the
 * button that asked has gone, as it does when the machine's release event arrives (pushed) before
 * the release's answer and the page stops offering Release.
 */
export function useReleaseInstance(onReleased?: (result: ReleaseInstanceResponse) => void) {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<ReleaseInstanceResponse, BenchdeskApiError, { instance_id: number; force?: boolean }>({
    mutationFn: (input) => api.releaseInstance(input),
    onSuccess: (result) => onReleased?.(result),
    onSettled: (result) => {
      void qc.invalidateQueries({ queryKey: settingsKeys.instances });
      void qc.invalidateQueries({ queryKey: ['health'] });
      void qc.invalidateQueries({ queryKey: ['spend'] });
      // The job's record now says its machine is released.
      if (result?.job_id) void qc.invalidateQueries({ queryKey: ['job', result.job_id] });
    },
  });
}

export function useApiToken(enabled: boolean) {
  const api = useApi();
  return useQuery<ApiTokenResponse, BenchdeskApiError>({
    queryKey: ['api-token'],
    queryFn: ({ signal }) => api.getApiToken({}, { signal }),
    enabled,
    // Shown on request only: never cached longer than the page shows it.
    gcTime: 0,
    staleTime: Infinity,
  });
}

export function useTestMarketplaceKey() {
  const api = useApi();
  return useMutation<MarketplaceKeyTestResponse, BenchdeskApiError, string | undefined>({
    mutationFn: (key) => api.testMarketplaceKey(key === undefined ? {} : { key }),
  });
}
