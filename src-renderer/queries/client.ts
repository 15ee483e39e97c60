import { QueryCache, QueryClient } from '@tanstack/react-query';
import { useSession } from '../bridge/session';
import { BenchdeskApiError } from '../../shared/client';

/** A 4xx is an answer (bad input, unknown job, no access): retrying it only delays the message. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof BenchdeskApiError && error.problem.status >= 400 && error.problem.status < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    // A 401 anywhere means the token stopped working (rotated elsewhere): the shell checks it again
    // and shows the sign-in screen instead of an error on every panel.
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (query.queryKey[0] !== 'auth-probe' && error instanceof BenchdeskApiError && error.problem.status === 401) useSession.getState().refused();
      },
    }),
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4_000),
        staleTime: 5_000,
      },
      mutations: { retry: false },
    },
  });
}
