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
    refetchInterval: 15_000,
  });
}
