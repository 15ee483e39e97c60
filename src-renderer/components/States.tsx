import type { ReactNode } from 'react';
import { BenchdeskApiError, toBenchdeskApiError } from '../../shared/client';
import { useConnection } from '../state/connection';

/** Nothing to show yet: say why and what to do. */
export function EmptyState({ title, children, action, testId }: { title: ReactNode; children?: ReactNode; action?: ReactNode; testId?: string }) {
  return (
    <div className="empty" data-testid={testId ?? 'empty-state'}>
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

/**
 * A placeholder of fixed height while data loads, so the layout does not jump when it arrives.
 * While the server is not heard it says what it waits for (the banner above says why).
 */
export function Loading({ label = 'Loading…', height = 120 }: { label?: string; height?: number }) {
  const down = useConnection((s) => s.link === 'down');
  return (
    <div className="loading" style={{ minHeight: height }} role="status" aria-live="polite" data-waiting={down ? 'server' : undefined}>
      <span className="spinner" aria-hidden="true" />
      {down ? 'Waiting for the benchdesk server: this loads as soon as it answers.' : label}
    </div>
  );
}

export type ErrorAdvice = { title: string; advice: ReactNode };

/** What a failure means for the user and what to do next, by problem code and status. */
export function adviceFor(error: BenchdeskApiError): ErrorAdvice {
  const p = error.problem;
  switch (p.code) {
    case 'upstream_unreachable':
      if (/benchdesk API/i.test(p.detail)) {
        return {
          title: 'The benchdesk API is unreachable',
          advice: (
            <>
              Start it with <code>benchdesk serve</code> (or <code>npm run serve</code>), or reopen the desktop app. Then retry.
            </>
          ),
        };
      }
      if (/marketplace|vast/i.test(p.detail)) return { title: 'The marketplace does not answer', advice: 'Check your network or the marketplace’s status, then retry.' };
      return { title: 'A backend did not answer', advice: 'Check that the backend URL is right and the server is running, then retry.' };
    case 'unauthorized':
      return { title: 'The API refused the token (401)', advice: 'Sign in again with a token this server accepts.' };
    case 'auth_not_configured':
      return { title: 'The API has no token configured', advice: 'Set SERVICE_API_TOKENS (or start the desktop app once to create a token), then restart the server.' };
    case 'auth_blocked':
      return { title: 'Too many failed sign-ins', advice: 'The API blocked this client for a while after wrong tokens. Wait a minute, then retry with the right token.' };
    case 'marketplace_not_configured':
      return {
        title: 'No marketplace key',
        advice: (
          <>
            Set <code>VAST_API_KEY</code> in the server's environment (or add the key in Settings in the desktop app) to rent GPUs and see live offers.
          </>
        ),
      };
    case 'job_not_found':
    case 'not_found':
      return { title: 'Not found', advice: 'It may belong to another tenant or the link may be wrong. Open the Jobs page to find it.' };
    case 'upstream_error':
      // The service's own words are the detail, shown once below.
      if (/marketplace|vast|instance/i.test(p.detail)) return { title: 'The marketplace refused or failed', advice: 'What it answered is below; retry in a moment, or check the machine in the Vast.ai console.' };
      return { title: 'A service benchdesk depends on failed', advice: 'What it answered is below; retry in a moment.' };
    case 'shutting_down':
      return { title: 'The API is shutting down', advice: 'Restart benchdesk, then retry.' };
    case 'insufficient_storage':
      return { title: 'The data disk is full', advice: 'Free space in the data directory; writes resume on their own.' };
    case 'validation_failed':
      return { title: 'Some fields are not valid', advice: 'Fix the highlighted fields and submit again.' };
    default:
      if (p.status >= 500) return { title: `The API failed (${p.status})`, advice: 'Retry; if it keeps failing, the server log has the details.' };
      return { title: p.title || 'Request failed', advice: p.detail };
  }
}

/** Failures the app-wide connection banner already explains in full (no API, no valid token). */
export function isConnectionError(err: BenchdeskApiError): boolean {
  return ['unauthorized', 'auth_blocked', 'auth_not_configured'].includes(err.code) || (err.code === 'upstream_unreachable' && /benchdesk API/i.test(err.problem.detail));
}

/**
 * An error with its meaning, what to do next, the technical detail, and a retry button. A
 * connection error (API down, token refused) is a quiet placeholder here: the one banner at the
 * top (or the sign-in screen) says what happened and what to do.
 */
export function ErrorState({ error, onRetry, testId }: { error: unknown; onRetry?: () => void; testId?: string }) {
  const err = error instanceof BenchdeskApiError ? error : toBenchdeskApiError(error);
  const { title, advice } = adviceFor(err);
  if (isConnectionError(err)) {
    return (
      <div className="waiting" data-testid={testId ?? 'error-state'} data-code={err.code} title={`${title} (HTTP ${err.status || 'none'})`}>
        <span className="muted">Waiting for the benchdesk API…</span>
        {onRetry ? (
          <button type="button" className="button button-small" onClick={onRetry}>
            Retry
          </button>
        ) : null}
      </div>
    );
  }
  return (
    <div className="problem" role="alert" data-testid={testId ?? 'error-state'} data-code={err.code}>
      <p className="problem-title">{title}</p>
      <p>{advice}</p>
      <p className="problem-detail">
        {err.problem.detail} <span className="muted">({err.code}{err.status ? `, HTTP ${err.status}` : ''})</span>
      </p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

/** A one-line notice: info, warning or error tone. */
export function Notice({ tone = 'info', children, testId }: { tone?: 'info' | 'warn' | 'error' | 'ok'; children: ReactNode; testId?: string }) {
  return (
    <div className={`notice notice-${tone}`} role={tone === 'error' ? 'alert' : 'note'} data-testid={testId}>
      {children}
    </div>
  );
}
