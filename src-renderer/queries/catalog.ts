import { useQuery } from '@tanstack/react-query';
import type { CatalogResponse } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys } from './keys';

/** The marketplace model catalog (names and VRAM); it changes only with settings, so cache it long. */
export function useCatalog() {
  const api = useApi();
  return useQuery<CatalogResponse, BenchdeskApiError>({
    queryKey: queryKeys.catalog,
    queryFn: () => api.listCatalog({}),
    staleTime: 10 * 60_000,
  });
}
