import { formatClock } from '../lib/format';
import { useConnection } from '../state/connection';

/**
 * The app's one banner: shown in the top bar (whose height never changes, so nothing below moves)
 * while the server cannot be heard. Live figures are frozen meanwhile; the live feed reconnects
 * by itself and everything on screen is read again once it does.
 */
export function ConnectionBanner() {
  const link = useConnection((s) => s.link);
  const downSince = useConnection((s) => s.downSince);
  const retryNow = useConnection((s) => s.retryNow);
  if (link === 'up' || downSince === null) return <div className="topbar-status" aria-live="polite" />;
  return (
    <div className="topbar-status" aria-live="polite">
      <div className="banner" role="alert" data-testid="connection-banner" data-state="down">
        <span className="banner-text">
          <strong>The benchdesk server stopped answering</strong>
          <span className="banner-detail"> at {formatClock(new Date(downSince).toISOString()).slice(0, 8)}. Figures are frozen; reconnecting…</span>
        </span>
        <button type="button" className="button button-small" onClick={retryNow} data-testid="connection-retry">
          Retry now
        </button>
      </div>
    </div>
  );
}
