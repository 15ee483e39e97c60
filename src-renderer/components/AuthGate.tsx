import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import type { Health, JobListResponse } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { useSession } from '../bridge/session';
import { useHealth } from '../queries/health';
import { SignInScreen, ServerSetupScreen, UnreachableScreen } from './SignInScreen';
import { Loading } from './States';

export type GateState =
  | { screen: 'app' }
  | { screen: 'loading'; label: string }
  | { screen: 'unreachable'; error: BenchdeskApiError }
  | { screen: 'unconfigured' }
  | { screen: 'sign-in'; reason: 'no-token' | 'refused' | 'blocked'; health: Health };

/**
 * What browser mode shows before the pages (pure, so it is unit-tested): the API must answer, and
 * when it asks for a token, the tab must hold one it accepts. The desktop app (IPC) is always in.
 */
export function gateState(input: {
  transport: 'electron' | 'http';
  health: { data?: Health | undefined; error?: BenchdeskApiError | null | undefined };
  token: string | null;
  probe: { status: 'pending' | 'success' | 'error'; error?: BenchdeskApiError | null | undefined; fetching: boolean };
}): GateState {
  if (input.transport === 'electron') return { screen: 'app' };
  const health = input.health.data;
  if (!health) return input.health.error ? { screen: 'unreachable', error: input.health.error } : { screen: 'loading', label: 'Connecting to the benchdesk API…' };
  if (health.auth === 'disabled') return { screen: 'app' };
  if (health.auth === 'unconfigured') return { screen: 'unconfigured' };
  if (!input.token) return { screen: 'sign-in', reason: 'no-token', health };
  if (input.probe.status === 'error') {
    const code = input.probe.error?.code;
    if (code === 'auth_blocked') return { screen: 'sign-in', reason: 'blocked', health };
    if (input.probe.error?.status === 401) return { screen: 'sign-in', reason: 'refused', health };
    // Anything else (the server went away meanwhile): the pages and the banner deal with it.
    return { screen: 'app' };
  }
  if (input.probe.status === 'pending') return { screen: 'loading', label: 'Signing in…' };
  return { screen: 'app' };
}

/**
 * Shows the pages only once the API answers and accepts this tab's token; otherwise one screen that
 * says what is missing (sign in, configure the server, start it). A 401 anywhere later (a token
 * rotated elsewhere) brings the sign-in screen back.
 */
export function AuthGate({ children, frame }: { children: ReactNode; frame: (screen: ReactNode) => ReactNode }) {
  const api = useApi();
  const health = useHealth();
  const token = useSession((s) => s.token);
  const refusals = useSession((s) => s.refusals);
  const authRequired = api.transport === 'http' && health.data?.auth === 'enabled';
  // One cheap authenticated call tells whether the token works (/healthz is public).
  const probe = useQuery<JobListResponse, BenchdeskApiError>({
    queryKey: ['auth-probe', token, refusals],
    queryFn: ({ signal }) => api.listJobs({ limit: 1 }, { signal }),
    enabled: authRequired && token !== null,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
    // A new token while signed in (rotated from Settings, or a 401 to check): the pages stay while it is checked.
    placeholderData: keepPreviousData,
  });
  const state = gateState({
    transport: api.transport,
    health: { data: health.data, error: health.error },
    token,
    probe: { status: probe.status, error: probe.error, fetching: probe.isFetching },
  });
  // Signed in again after a refusal: what the pages fetched with the old token failed; read it anew.
  const wasOut = useRef(false);
  const qc = useQueryClient();
  useEffect(() => {
    if (state.screen === 'sign-in') wasOut.current = true;
    else if (state.screen === 'app' && wasOut.current) {
      wasOut.current = false;
      void qc.resetQueries({ predicate: (q) => q.queryKey[0] !== 'auth-probe' && q.queryKey[0] !== 'health' });
    }
  }, [state.screen, qc]);

  switch (state.screen) {
    case 'app':
      return <>{children}</>;
    case 'loading':
      return frame(<Loading label={state.label} height={320} />);
    case 'unreachable':
      return frame(<UnreachableScreen error={state.error} onRetry={() => void health.refetch()} />);
    case 'unconfigured':
      return frame(<ServerSetupScreen />);
    case 'sign-in':
      return frame(<SignInScreen reason={state.reason} health={state.health} checking={probe.isFetching} />);
  }
}
