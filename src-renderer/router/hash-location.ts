import { useSyncExternalStore } from 'react';

/**
 * wouter's location hooks over the URL hash, with a page's own query inside the hash:
 * `#/jobs?status=failed&q=llama`. The path part (`/jobs`) is what routes match; the query part is
 * what `useSearch`/`useSearchParams` read and write. (wouter's own hash hook puts the query in
 * the real query string, where every other page would carry it too.) Works over file:// and /ui/.
 */

const listeners = new Set<() => void>();
function onHashChange(): void {
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener('hashchange', onHashChange);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('hashchange', onHashChange);
  };
}

/** `#/jobs?x=1` → `/jobs`; an empty hash is the Overview `/`. */
export function pathOfHash(hash: string): string {
  const raw = hash.replace(/^#?\/?/, '');
  const q = raw.indexOf('?');
  return `/${q >= 0 ? raw.slice(0, q) : raw}`;
}

/** `#/jobs?x=1` → `x=1`. */
export function searchOfHash(hash: string): string {
  const q = hash.indexOf('?');
  return q >= 0 ? hash.slice(q + 1) : '';
}

export function navigateHash(to: string, { replace = false, state = null }: { replace?: boolean; state?: unknown } = {}): void {
  const oldURL = window.location.href;
  const url = new URL(oldURL);
  url.hash = to.startsWith('/') ? to : `/${to}`;
  if (url.href === oldURL) return;
  window.history[replace ? 'replaceState' : 'pushState'](state, '', url.href);
  window.dispatchEvent(new HashChangeEvent('hashchange', { oldURL, newURL: url.href }));
}

function usePath(): string {
  return useSyncExternalStore(subscribe, () => pathOfHash(window.location.hash));
}

function useHashSearch(): string {
  return useSyncExternalStore(subscribe, () => searchOfHash(window.location.hash));
}

/** The hook for <Router hook={useHashRoute}>: [path, navigate], with the search hook and href form wouter asks for. */
export function useHashRoute(): [string, typeof navigateHash] {
  return [usePath(), navigateHash];
}
useHashRoute.searchHook = useHashSearch;
useHashRoute.hrefs = (href: string) => `#${href}`;
