import { useQuery } from '@tanstack/react-query';
import type { BenchdeskApiError, Health } from '../../shared';
import { useApi } from '../bridge';
import { toBenchdeskApiError } from '../bridge/problems';

export const healthKey = ['health'] as const;

export function useHealth() {
  const api = useApi();
  return useQuery<Health, BenchdeskApiError>({
    queryKey: healthKey,
    queryFn: () =>
      api.getHealth(undefined).catch((err: unknown) => {
        throw toBenchdeskApiError(err);
      }),
    refetchInterval: 15_000,
  });
}
