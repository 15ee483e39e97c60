import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { CostEstimationRequest, CostEstimationResponse } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { queryKeys } from './keys';

export type EstimateInput = Pick<CostEstimationRequest, 'marketplace' | 'min_dph' | 'max_dph' | 'reliability' | 'estimated_duration_seconds'> & {
  model?: string | undefined;
};

/** The value after it stopped changing for `ms` (typing a price does not fire a request per key). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * A cost estimate for `input` (null: the form is not valid yet). The previous answer stays on
 * screen while a new one loads, so the table and charts do not jump.
 */
export function useEstimate(input: EstimateInput | null) {
  const api = useApi();
  return useQuery<CostEstimationResponse, BenchdeskApiError>({
    queryKey: queryKeys.estimate(input ?? {}),
    queryFn: ({ signal }) => api.createEstimate(input ?? {}, { signal }),
    enabled: input !== null,
    placeholderData: keepPreviousData,
    // Offers move; a minute-old list is still a fair estimate.
    staleTime: 60_000,
  });
}
