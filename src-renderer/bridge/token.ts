/**
 * Browser-mode API token. It arrives in the URL hash (`#token=…`, so it never reaches a server log
 * or a Referer), on the first load or added to an open tab at any time; it moves to sessionStorage
 * (gone when the tab closes) and is scrubbed from the address bar and the history entry.
 */
export const TOKEN_STORAGE_KEY = 'benchdesk.apiToken';

export interface TokenEnv {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
}

/**
 * Splits `token=` out of a hash: `#token=abc`, `#token=abc&x=1` and `#/jobs?token=abc` all carry
 * one. `found` is false when the hash names no token; `rest` is the hash to keep (without '#').
 */
export function splitTokenFromHash(hash: string): { found: boolean; token: string | null; rest: string } {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  const [path, query] = raw.startsWith('/') ? [q >= 0 ? raw.slice(0, q) : raw, q >= 0 ? raw.slice(q + 1) : ''] : ['', raw];
  const params = new URLSearchParams(query);
  if (!params.has('token')) return { found: false, token: null, rest: raw };
  const token = params.get('token')?.trim() || null;
  params.delete('token');
  const left = params.toString();
  return { found: true, token, rest: path ? `${path}${left ? `?${left}` : ''}` : left };
}

export function readStoredToken(env: Pick<TokenEnv, 'storage'>): string | null {
  try {
    return env.storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

export function storeToken(env: Pick<TokenEnv, 'storage'>, token: string | null): void {
  try {
    if (token) env.storage?.setItem(TOKEN_STORAGE_KEY, token);
    else env.storage?.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    // Storage may be disabled; the token then lives for this page only.
  }
}

/**
 * Takes a token out of the current hash (scrubbing it from the address bar and keeping the rest,
 * or `fallbackHash`, the page the tab showed before, when the hash held nothing else) and stores it.
 * Returns the token found, or null when the hash had none.
 */
export function takeTokenFromHash(env: TokenEnv, fallbackHash = ''): string | null {
  const split = splitTokenFromHash(env.location.hash);
  const { found, rest } = split;
  if (!found) return null;
  // `#token=default:<token>` (copied from SERVICE_API_TOKENS) signs in as well.
  const pasted = split.token ? pastedToken(split.token) : null;
  const token = pasted && 'token' in pasted ? pasted.token : split.token;
  const keep = rest || splitTokenFromHash(fallbackHash).rest;
  env.history.replaceState(env.history.state, '', `${env.location.pathname}${env.location.search}${keep ? `#${keep}` : ''}`);
  if (token) storeToken(env, token);
  return token;
}

/** The token of this tab: from the hash when it has one, else the one stored earlier. */
export function takeBrowserToken(env: TokenEnv): string | null {
  return takeTokenFromHash(env) ?? readStoredToken(env);
}

export function browserTokenEnv(): TokenEnv {
  let storage: Storage | null;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = null; // Access throws when storage is blocked for the origin.
  }
  return { location: window.location, history: window.history, storage };
}

/**
 * A token as people paste it: trimmed, without a leading "Bearer ", and in SERVICE_API_TOKENS'
 * `tenant:token` form for the `default` tenant (the one this app signs in as). Another tenant's
 * entry is refused with the reason.
 */
export function pastedToken(input: string): { token: string } | { problem: string } {
  let text = input.trim().replace(/^bearer\s+/i, '').trim();
  const entry = /^([A-Za-z0-9_.-]+):(\S+)$/.exec(text);
  if (entry) {
    const [, tenant, token] = entry;
    if (tenant !== 'default') return { problem: `That is tenant “${tenant}”’s entry (tenant:token); this app signs in as the default tenant. Paste a token of the default tenant.` };
    text = token ?? '';
  }
  return text ? { token: text } : { problem: 'Paste the API token.' };
}
