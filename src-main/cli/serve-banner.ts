import { apiTokenItems, DEFAULT_TENANT, type AuthMode } from '../api/auth';

/**
 * What `benchdesk serve` / `npm run serve` (and `npm start` without Electron) print once the server
 * listens: where the API is, and the address to open in a browser, with the token in the URL's
 * fragment (the page moves it into the tab's storage and out of the address bar; a fragment never
 * reaches a server log or a Referer).
 */

/**
 * The plaintext token of tenant "default" in SERVICE_API_TOKENS (read as the API reads it). The
 * browser UI signs in as "default".
 */
export function defaultTenantToken(raw: string | undefined): string | undefined {
  return apiTokenItems(raw).find((item) => item.tenant === DEFAULT_TENANT)?.token;
}

/** The browser UI's address, signed in when a token is given. */
export function browserUiUrl(apiUrl: string, token?: string): string {
  const base = `${apiUrl.replace(/\/+$/, '')}/ui/`;
  return token ? `${base}#token=${encodeURIComponent(token)}` : base;
}

export type ServeBannerFacts = {
  apiUrl: string;
  dataDir: string;
  authMode: AuthMode;
  /** 'served', 'off' (BENCHDESK_SERVE_UI=0), or 'not-built' (asked for or defaulted on, but dist/renderer is missing). */
  ui: 'served' | 'off' | 'not-built';
  /** The token to sign the browser in with, and where it came from. */
  token?: { value: string; source: 'env' } | { value: string; source: 'app'; file: string };
  /** Where the log lines go, when not to stdout (`npm start`). */
  logFile?: string;
};

/** The desktop app's one line on the terminal `npm start` ran in: the API, the token for scripts, the log. */
export function desktopStatusLine(facts: { apiUrl: string; tokenFile: string; logFile: string }): string {
  return `benchdesk: the app's API is on ${facts.apiUrl}; for curl and scripts: export BENCHDESK_TOKEN="$(cat ${shellQuote(facts.tokenFile)})"; its log: ${facts.logFile}`;
}

/** A path as one shell word: as it is when it is plain, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The lines printed on stdout once the server listens. */
export function serveBanner(facts: ServeBannerFacts): string[] {
  const lines = [`benchdesk API listening on ${facts.apiUrl} (data: ${facts.dataDir}, auth: ${facts.authMode})`];
  if (facts.ui === 'not-built') {
    lines.push('The browser UI is not built (run `npm run build`), so only the API is served.');
  } else if (facts.ui === 'served') {
    if (facts.token) {
      lines.push(`Open the browser UI: ${browserUiUrl(facts.apiUrl, facts.token.value)}`);
      if (facts.token.source === 'app') {
        lines.push(`(The API token is kept in ${facts.token.file}; the CLI reads it from there.)`);
        // What the README's curl lines use (issue 34 item 11: nothing set BENCHDESK_TOKEN).
        lines.push(`For curl and scripts: export BENCHDESK_TOKEN="$(cat ${shellQuote(facts.token.file)})"`);
      }
    } else if (facts.authMode === 'disabled') {
      lines.push(`Open the browser UI: ${browserUiUrl(facts.apiUrl)} (authentication is off)`);
    } else if (facts.authMode === 'enabled') {
      lines.push(`Browser UI: ${browserUiUrl(facts.apiUrl)} (SERVICE_API_TOKENS has no token for tenant "default", which the browser UI signs in as)`);
    } else {
      lines.push(
        `Browser UI: ${browserUiUrl(facts.apiUrl)} needs an API token, and none is configured: restart with ` +
          'SERVICE_API_TOKENS="default:$(openssl rand -hex 24)" and open the URL it prints.',
      );
    }
  }
  if (facts.logFile) lines.push(`Its log: ${facts.logFile}`);
  lines.push('Ctrl-C stops the server.');
  return lines;
}
