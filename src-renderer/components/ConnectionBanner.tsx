import { useQuery } from '@tanstack/react-query';
import type { JobListResponse } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { useHealth } from '../queries/health';
import { adviceFor } from './States';

/**
 * One banner for the whole app when the API is unreachable or refuses our token, so every page
 * does not repeat it. /healthz is public, so a 401 is detected with a one-row authenticated call.
 */
export function ConnectionBanner() {
  const api = useApi();
  const health = useHealth();
  const auth = useQuery<JobListResponse, BenchdeskApiError>({
    queryKey: ['auth-probe'],
    queryFn: ({ signal }) => api.listJobs({ limit: 1 }, { signal }),
    enabled: health.isSuccess,
    staleTime: 60_000,
    retry: false,
  });
  const error = health.error ?? (auth.error && [401, 403, 404].includes(auth.error.status) ? auth.error : null);
  if (!error) return null;
  const { title, advice } = adviceFor(error);
  return (
    <div className="banner" role="alert" data-testid="connection-banner" data-code={error.code}>
      <div className="banner-text">
        <strong>{title}.</strong> {advice}
      </div>
      <button type="button" className="button" onClick={() => void (health.isError ? health.refetch() : auth.refetch())}>
        Retry
      </button>
    </div>
  );
}
