import type { CostEstimationResponse, MarketplaceStatus } from '../../../shared';
import { hrefOf, ROUTES } from '../../router/routes';

/** Why there are no live prices, from the server's marketplace_status (or, from an older server, its warning). */
export function liveStatusOf(estimate: CostEstimationResponse): MarketplaceStatus {
  if (estimate.marketplace_status) return estimate.marketplace_status;
  const warning = estimate.warning ?? '';
  if (/No VAST_API_KEY set/.test(warning)) return { state: 'no_key', message: 'no marketplace key', api_url: null };
  const failed = /live offer search failed \((.*)\), so/.exec(warning)?.[1];
  return { state: /did not answer|could not reach|timed? ?out/i.test(failed ?? '') ? 'unreachable' : 'failed', message: failed ?? warning, api_url: null };
}

const TITLES: Record<MarketplaceStatus['state'], string> = {
  no_key: 'No marketplace key: no live prices',
  unreachable: 'The marketplace does not answer',
  key_refused: 'The marketplace refused the key',
  failed: 'The live offer search failed',
};

/**
 * No live offers, so no price: said apart for a missing key and a marketplace that does not
 * answer (with what was asked, and where), never as "$0.35 expected" from the middle of a range.
 */
export function NoLivePrices({ status, onRetry }: { status: MarketplaceStatus; onRetry: () => void }) {
  const where = status.api_url ? <code>{status.api_url}</code> : 'the marketplace';
  return (
    <div className={`notice notice-${status.state === 'no_key' ? 'warn' : 'error'}`} role={status.state === 'no_key' ? 'note' : 'alert'} data-testid="estimate-no-live" data-state={status.state}>
      <p>
        <strong data-testid="estimate-no-live-title">{TITLES[status.state]}.</strong>{' '}
        {status.state === 'no_key' ? (
          <>
            Prices come from the marketplace’s live offers, which need a key: set <code>VAST_API_KEY</code> for the server and restart it, or add the key in{' '}
            <a href={hrefOf(ROUTES.settings)}>Settings</a> in the desktop app.
          </>
        ) : status.state === 'unreachable' ? (
          <>
            benchdesk asked {where} for the offers that fit: {status.message}. Check your network (or the marketplace’s status page).
          </>
        ) : status.state === 'key_refused' ? (
          <>
            {where} answered: {status.message}. Check the key with <a href={hrefOf(ROUTES.settings)}>Settings → Test key</a>.
          </>
        ) : (
          <>
            {where} answered: {status.message}.
          </>
        )}
      </p>
      <p>No cost is shown: without live offers there is no machine to price, and the middle of your price range is not a price.</p>
      {status.state === 'no_key' ? null : (
        <button type="button" className="button button-small notice-action" onClick={onRetry} data-testid="estimate-retry">
          Ask again
        </button>
      )}
    </div>
  );
}
