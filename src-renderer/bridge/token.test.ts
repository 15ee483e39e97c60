import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY, pastedToken, splitTokenFromHash, takeBrowserToken, takeTokenFromHash, type TokenEnv } from './token';

function env(hash: string, stored: string | null = null): TokenEnv & { urls: string[]; store: Map<string, string> } {
  const store = new Map<string, string>(stored ? [[TOKEN_STORAGE_KEY, stored]] : []);
  const urls: string[] = [];
  const location = { hash, pathname: '/ui/', search: '' };
  return {
    urls,
    store,
    location,
    history: {
      state: null,
      replaceState: (_s: unknown, _t: string, url?: string | URL | null) => {
        urls.push(String(url));
        location.hash = String(url).includes('#') ? `#${String(url).split('#')[1]}` : '';
      },
    },
    storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
  };
}

describe('the token in the URL', () => {
  it('finds it in every form the hash can carry it', () => {
    expect(splitTokenFromHash('#token=abc')).toEqual({ found: true, token: 'abc', rest: '' });
    expect(splitTokenFromHash('#token=abc&x=1')).toEqual({ found: true, token: 'abc', rest: 'x=1' });
    expect(splitTokenFromHash('#/jobs?token=abc&q=llama')).toEqual({ found: true, token: 'abc', rest: '/jobs?q=llama' });
    expect(splitTokenFromHash('#/jobs?q=llama')).toEqual({ found: false, token: null, rest: '/jobs?q=llama' });
    expect(splitTokenFromHash('#/jobs/abc')).toMatchObject({ found: false });
    expect(splitTokenFromHash('#token=')).toEqual({ found: true, token: null, rest: '' });
  });

  it('on first load: stores it and scrubs it from the address bar', () => {
    const e = env('#token=secret');
    expect(takeBrowserToken(e)).toBe('secret');
    expect(e.store.get(TOKEN_STORAGE_KEY)).toBe('secret');
    expect(e.urls).toEqual(['/ui/']);
  });

  it('added to an open tab: the tab stays on the page it showed', () => {
    const e = env('#token=secret');
    expect(takeTokenFromHash(e, '#/jobs?status=failed')).toBe('secret');
    expect(e.urls).toEqual(['/ui/#/jobs?status=failed']);
    // A route with the token in its query keeps the route.
    const f = env('#/settings?token=other');
    expect(takeTokenFromHash(f, '#/jobs')).toBe('other');
    expect(f.urls).toEqual(['/ui/#/settings']);
  });

  it('without one in the hash: the stored token, and the URL is left alone', () => {
    const e = env('#/jobs', 'kept');
    expect(takeBrowserToken(e)).toBe('kept');
    expect(e.urls).toEqual([]);
    expect(takeBrowserToken(env('#/'))).toBeNull();
  });
});

describe('a pasted token', () => {
  it("takes SERVICE_API_TOKENS' default:<token> form, a Bearer prefix and spaces", () => {
    expect(pastedToken('  default:abc123_-X ')).toEqual({ token: 'abc123_-X' });
    expect(pastedToken('Bearer abc')).toEqual({ token: 'abc' });
    expect(pastedToken('abc')).toEqual({ token: 'abc' });
    expect(pastedToken('acme:abc')).toMatchObject({ problem: expect.stringContaining('acme') });
    expect(pastedToken('   ')).toMatchObject({ problem: expect.any(String) });
  });
});
