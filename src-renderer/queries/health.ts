import { useQuery } from '@tanstack/react-query';
import type { Health } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';

export const healthKey = ['health'] as const;

export function useHealth() {
  const api = useApi();
  return useQuery<Health, BenchdeskApiError>({
    queryKey: healthKey,
    queryFn: ({ signal }) => api.getHealth({}, { signal }),
    // Every few seconds while the API does not answer (the screen says it connects by itself), else now and then.
    refetchInterval: (query) => (query.state.status === 'error' ? 3_000 : 15_000),
    retry: false,
  });
}
