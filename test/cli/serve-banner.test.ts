import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseApiTokens } from '../../src-main/api/auth';
import { browserUiUrl, defaultTenantToken, desktopStatusLine, serveBanner } from '../../src-main/cli/serve-banner';
import { uiDecision } from '../../src-main/cli/serve';

/** What `serve` prints once it listens: the API address and the browser URL with its token. */

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

describe('the token serve signs the browser in with', () => {
  it('is the first token of tenant "default", read as the API reads SERVICE_API_TOKENS', () => {
    const cases: Array<[string, string | undefined]> = [
      ['default:abc', 'abc'],
      ['bare-token', 'bare-token'],
      [' team:t1 , default: d1 ,default:d2', 'd1'],
      ['team:t1', undefined],
      ['default:', undefined],
      ['', undefined],
    ];
    for (const [raw, expected] of cases) {
      const token = defaultTenantToken(raw);
      expect(token, raw).toBe(expected);
      // The API accepts exactly this token for "default".
      if (token) expect(parseApiTokens(raw).get('default')).toContain(sha256(token));
    }
  });

  it('travels in the URL fragment, encoded so the page reads back the same token', () => {
    const token = 'a+b/c=d&e f';
    const url = new URL(browserUiUrl('http://127.0.0.1:8080', token));
    expect(url.pathname).toBe('/ui/');
    expect(url.search).toBe('');
    // The page reads the fragment as URL parameters (src-renderer/bridge/token.ts).
    expect(new URLSearchParams(url.hash.slice(1)).get('token')).toBe(token);
    expect(browserUiUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/ui/');
  });
});

describe('the lines serve prints', () => {
  const base = { apiUrl: 'http://127.0.0.1:8080', dataDir: '/d', authMode: 'enabled' as const, ui: 'served' as const };

  it('prints the URL to open with the token it was given', () => {
    const lines = serveBanner({ ...base, token: { value: 'tok', source: 'env' } });
    expect(lines[0]).toBe('benchdesk API listening on http://127.0.0.1:8080 (data: /d, auth: enabled)');
    expect(lines).toContain('Open the browser UI: http://127.0.0.1:8080/ui/#token=tok');
    expect(lines.at(-1)).toBe('Ctrl-C stops the server.');
  });

  it('with the app token it created, says where that token is kept', () => {
    const lines = serveBanner({ ...base, token: { value: 'app', source: 'app', file: '/d/api-token' } });
    expect(lines).toContain('Open the browser UI: http://127.0.0.1:8080/ui/#token=app');
    expect(lines).toContain('(The API token is kept in /d/api-token; the CLI reads it from there.)');
    // The export line the README's curl and CLI lines rely on (issue 34 item 11).
    expect(lines).toContain('For curl and scripts: export BENCHDESK_TOKEN="$(cat /d/api-token)"');
    const spaced = serveBanner({ ...base, token: { value: 'app', source: 'app', file: "/Users/ada/Library/Application Support/it's/api-token" } });
    expect(spaced).toContain(`For curl and scripts: export BENCHDESK_TOKEN="$(cat '/Users/ada/Library/Application Support/it'\\''s/api-token')"`);
  });

  it('names the log file when the log does not go to stdout, and the desktop app says its one line', () => {
    expect(serveBanner({ ...base, logFile: '/d/logs/benchdesk.log' })).toContain('Its log: /d/logs/benchdesk.log');
    expect(desktopStatusLine({ apiUrl: 'http://127.0.0.1:8080', tokenFile: '/d/api-token', logFile: '/d/logs/benchdesk.log' })).toBe(
      `benchdesk: the app's API is on http://127.0.0.1:8080; for curl and scripts: export BENCHDESK_TOKEN="$(cat /d/api-token)"; its log: /d/logs/benchdesk.log`,
    );
  });

  it('says what to do when the browser could not sign in', () => {
    expect(serveBanner({ ...base, authMode: 'unconfigured' }).join('\n')).toMatch(/needs an API token, and none is configured: restart with SERVICE_API_TOKENS=/);
    expect(serveBanner({ ...base, authMode: 'enabled' }).join('\n')).toMatch(/no token for tenant "default"/);
    expect(serveBanner({ ...base, authMode: 'disabled' })).toContain('Open the browser UI: http://127.0.0.1:8080/ui/ (authentication is off)');
  });

  it('prints no browser URL when the UI is off or not built, and says how to build it', () => {
    const off = serveBanner({ ...base, ui: 'off', token: { value: 'tok', source: 'env' } });
    expect(off.join('\n')).not.toContain('/ui/');
    const missing = serveBanner({ ...base, ui: 'not-built', token: { value: 'tok', source: 'env' } });
    expect(missing.join('\n')).not.toContain('#token=');
    expect(missing).toContain('The browser UI is not built (run `npm run build`), so only the API is served.');
  });
});

describe('whether serve serves the browser UI', () => {
  it('serves it whenever it is built, unless BENCHDESK_SERVE_UI says otherwise', () => {
    expect(uiDecision(undefined, false, true)).toBe('served');
    expect(uiDecision('', false, true)).toBe('served');
    expect(uiDecision(undefined, false, false)).toBe('off');
    expect(uiDecision('0', false, true)).toBe('off');
    expect(uiDecision('no', false, true)).toBe('off');
    expect(uiDecision('1', false, true)).toBe('served');
    expect(uiDecision('1', false, false)).toBe('not-built');
    // npm start's browser fallback always wants it.
    expect(uiDecision('0', true, true)).toBe('served');
    expect(uiDecision(undefined, true, false)).toBe('not-built');
  });
});
