import { useId, useState, type FormEvent } from 'react';
import type { Health } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useSession } from '../bridge/session';
import { pastedToken } from '../bridge/token';
import { CopyButton } from './CopyButton';
import { defaultDataDirText, tokenFileCommand } from './token-file-command';

/** This machine's platform, for the data dir hint (the server runs on this machine: loopback). */
function platformOfBrowser(): string {
  return typeof navigator === 'undefined' ? '' : navigator.platform;
}

/** A command on one line with a copy button. */
function Command({ text, testId }: { text: string; testId?: string }) {
  return (
    <div className="command" data-testid={testId}>
      <code>{text}</code>
      <CopyButton text={text} label="Copy" />
    </div>
  );
}

/** Where this server's tokens are, from /healthz's token_sources (both hints when it does not say). */
export function TokenHints({ sources }: { sources: Health['token_sources'] }) {
  const app = !sources || sources.includes('app_token');
  const env = !sources || sources.includes('environment');
  const platform = platformOfBrowser();
  const dir = defaultDataDirText(platform);
  return (
    <div className="signin-hints" data-testid="signin-hints" data-sources={(sources ?? []).join(' ')}>
      {env ? (
        <section data-testid="hint-environment">
          <h3>The token you started the server with</h3>
          <p>
            This server takes its tokens from <code>SERVICE_API_TOKENS</code> (<code>tenant:token</code> pairs) in its environment: paste the
            part after the colon. If you started it as the README shows, the shell that started it prints the token with:
          </p>
          <Command text="echo $BENCHDESK_TOKEN" />
        </section>
      ) : null}
      {app ? (
        <section data-testid="hint-app-token">
          <h3>The app’s own token</h3>
          <p>
            The desktop app shows it under Settings → API token. On the machine running benchdesk, this prints it (the data directory is on
            the first line <code>benchdesk serve</code> printed; <code>{dir}</code> by default):
          </p>
          <Command text={tokenFileCommand(platform)} testId="token-file-command" />
        </section>
      ) : null}
      <p className="muted note-small">
        Opening an address that ends in <code>#token=…</code> (the one <code>benchdesk serve</code> prints) signs this tab in too, also in a tab
        that is already open. The token stays in this tab only and is removed from the address bar.
      </p>
    </div>
  );
}

const REASON_TEXT = {
  'no-token': null,
  refused: 'The server did not accept that token. Check that you copied all of it, from this server.',
  blocked: 'Too many wrong tokens came from this address: the server refuses sign-ins for up to a minute. Wait, then try again.',
} as const;

/** The one sign-in screen of browser mode: paste a token, or learn where to find it. */
export function SignInScreen({ reason, health, checking }: { reason: 'no-token' | 'refused' | 'blocked'; health: Health; checking: boolean }) {
  const setToken = useSession((s) => s.setToken);
  const [draft, setDraft] = useState('');
  const id = useId();
  const [pasteProblem, setPasteProblem] = useState<string | null>(null);
  const problem = pasteProblem ?? REASON_TEXT[reason];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const pasted = pastedToken(draft);
    if ('problem' in pasted) setPasteProblem(pasted.problem);
    else {
      setPasteProblem(null);
      setToken(pasted.token);
    }
  };
  return (
    <section className="signin" aria-labelledby="page-title" data-testid="sign-in" data-reason={reason}>
      <h1 id="page-title" className="page-title" tabIndex={-1}>
        Sign in to benchdesk
      </h1>
      <p className="page-subtitle">This server asks for an API token before it shows jobs, costs or settings.</p>
      <form className="signin-form" onSubmit={submit} noValidate>
        <label htmlFor={`${id}-token`}>API token</label>
        <div className="signin-row">
          <input
            id={`${id}-token`}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
              setPasteProblem(null);
            }}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            data-testid="signin-token"
            autoFocus
          />
          <button type="submit" className="button button-primary" disabled={!draft.trim() || checking} data-testid="signin-submit">
            {checking ? 'Checking…' : 'Sign in'}
          </button>
        </div>
        {problem ? (
          <p id={`${id}-problem`} className="field-error" role="alert" data-testid="signin-problem">
            {problem}
          </p>
        ) : null}
      </form>
      <h2 className="signin-where">Where to find the token</h2>
      <TokenHints sources={health.token_sources} />
    </section>
  );
}

/** Auth is neither configured nor disabled: every route but /healthz answers 404 until it is. */
export function ServerSetupScreen() {
  return (
    <section className="signin" aria-labelledby="page-title" data-testid="server-unconfigured">
      <h1 id="page-title" className="page-title" tabIndex={-1}>
        This server has no API token yet
      </h1>
      <p className="page-subtitle">It answers nothing but its health check until it has one. Stop it and start it with a token:</p>
      <Command text="export BENCHDESK_TOKEN=$(openssl rand -hex 24)" />
      <Command text={'SERVICE_API_TOKENS="default:$BENCHDESK_TOKEN" npm run serve'} />
      <p className="muted note-small">
        Then open the address it prints (it carries the token), or paste the token here. Starting the desktop app once also creates a token.
      </p>
    </section>
  );
}

/** The API does not answer at all (first load). The health check retries every few seconds. */
export function UnreachableScreen({ error, onRetry }: { error: BenchdeskApiError; onRetry: () => void }) {
  return (
    <section className="signin" aria-labelledby="page-title" data-testid="api-unreachable" data-code={error.code}>
      <h1 id="page-title" className="page-title" tabIndex={-1}>
        The benchdesk API does not answer
      </h1>
      <p className="page-subtitle">
        This page talks to the server that served it. Start it again (<code>npm run serve</code> or <code>benchdesk serve</code>), or reopen
        the desktop app; this page connects by itself once it answers.
      </p>
      <p className="muted note-small">{error.problem.detail}</p>
      <button type="button" className="button" onClick={onRetry}>
        Retry now
      </button>
    </section>
  );
}
