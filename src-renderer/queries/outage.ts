import { useQuery } from '@tanstack/react-query';
import type { MarketplaceInstanceList } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';
import { useConnection } from '../state/connection';
import { settingsKeys } from './settings';

/** A failure of the marketplace itself (it does not answer, or answers 5xx), not of benchdesk or the request. */
export function isMarketplaceOutage(error: BenchdeskApiError | null | undefined): boolean {
  if (!error) return false;
  if (error.code === 'upstream_unreachable' && /benchdesk API/i.test(error.problem.detail)) return false;
  return error.code === 'upstream_error' || error.code === 'upstream_unreachable' || error.status === 502 || error.status === 504;
}

/**
 * The marketplace's last answer to the machines list (the Overview's list, shared): its error when
 * the marketplace is not answering. Read where a Release is offered; refreshed by the Overview's
 * own schedule and the live feed, not here.
 */
export function useMarketplaceOutage(): BenchdeskApiError | null {
  const api = useApi();
  const machines = useQuery<MarketplaceInstanceList, BenchdeskApiError>({ queryKey: settingsKeys.instances, queryFn: ({ signal }) => api.listInstances({}, { signal }), staleTime: 10_000 });
  return isMarketplaceOutage(machines.error) ? machines.error : null;
}

export type ReleaseBlock = { short: string; reason: string };

/** Why a release cannot be sent now (the server or the marketplace is not answering), or null. */
export function useReleaseBlock(): ReleaseBlock | null {
  const serverDown = useConnection((s) => s.link === 'down');
  const market = useMarketplaceOutage();
  if (serverDown) return { short: 'server not answering', reason: 'The benchdesk server is not answering, and a release goes through it. Release comes back by itself when it answers.' };
  if (market) return { short: 'marketplace not answering', reason: `The marketplace is not answering, so a release could be neither sent nor confirmed (${market.problem.detail}). Release comes back once the machines list is read again.` };
  return null;
}
