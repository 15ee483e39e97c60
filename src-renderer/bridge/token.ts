/**
 * Browser-mode API token. It arrives once in the URL hash (`#token=...`, so it never reaches a
 * server log or a Referer), moves to sessionStorage (gone when the tab closes) and is scrubbed
 * from the address bar and history entry.
 */
export const TOKEN_STORAGE_KEY = 'benchdesk.apiToken';

export interface TokenEnv {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
}

export function takeBrowserToken(env: TokenEnv): string | null {
  const hash = env.location.hash.replace(/^#/, '');
  if (hash) {
    const params = new URLSearchParams(hash);
    const fromHash = params.get('token');
    if (params.has('token')) {
      params.delete('token');
      const rest = params.toString();
      env.history.replaceState(env.history.state, '', `${env.location.pathname}${env.location.search}${rest ? `#${rest}` : ''}`);
    }
    if (fromHash) {
      try {
        env.storage?.setItem(TOKEN_STORAGE_KEY, fromHash);
      } catch {
        // Storage may be disabled; the token then lives for this page load only.
      }
      return fromHash;
    }
  }
  try {
    return env.storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
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
