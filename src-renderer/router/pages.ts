import type { ComponentType } from 'react';

/**
 * Every page's code, each its own chunk (the first screen loads only what it shows: charts and
 * markdown are heavy). The chunks are fetched in the background once the app runs (see
 * prefetchPages), so opening a page later needs no server: in browser mode the server that
 * serves the code may be the one that just stopped.
 */
export const PAGE_LOADERS = {
  overview: { load: () => import('../pages/overview/OverviewPage'), name: 'OverviewPage' },
  estimate: { load: () => import('../pages/estimate/EstimatePage'), name: 'EstimatePage' },
  launch: { load: () => import('../pages/launch/LaunchPage'), name: 'LaunchPage' },
  jobs: { load: () => import('../pages/jobs/JobsPage'), name: 'JobsPage' },
  job: { load: () => import('../pages/job-detail/JobDetailPage'), name: 'JobDetailPage' },
  models: { load: () => import('../pages/models/ModelsPage'), name: 'ModelsPage' },
  compare: { load: () => import('../pages/compare/ComparePage'), name: 'ComparePage' },
  settings: { load: () => import('../pages/settings/SettingsPage'), name: 'SettingsPage' },
  suites: { load: () => import('../pages/suites/SuitesPage'), name: 'SuitesPage' },
  snapshots: { load: () => import('../pages/snapshots/SnapshotsPage'), name: 'SnapshotsPage' },
  snapshot: { load: () => import('../pages/snapshots/SnapshotPage'), name: 'SnapshotPage' },
  sweeps: { load: () => import('../pages/sweeps/SweepsPage'), name: 'SweepsPage' },
} as const;

export type PageId = keyof typeof PAGE_LOADERS;
/** The component a page id loads (its own props). */
/** What each page takes from its route. */
export type PageProps = {
  overview: object;
  estimate: object;
  launch: object;
  jobs: object;
  job: { jobId: string };
  models: object;
  compare: object;
  settings: object;
  suites: object;
  snapshots: object;
  snapshot: { snapshotId: string };
  sweeps: { sweepId?: string };
};
export type PageOf<K extends PageId> = ComponentType<PageProps[K]>;
/** How a page's module is fetched: the import above, or (retrying) the same chunk under a new URL. */
export type ModuleFetch = (id: PageId, attempt: number, lastError: unknown) => Promise<Record<string, unknown>>;

/** Pages whose code is here already: they render at once, without a loading state. */
const loaded = new Map<PageId, ComponentType<never>>();
const inFlight = new Map<PageId, Promise<ComponentType<never>>>();

export function loadedPage<K extends PageId>(id: K): PageOf<K> | undefined {
  return loaded.get(id) as PageOf<K> | undefined;
}

/**
 * Chromium remembers a failed dynamic import for the page's life: importing the same URL again
 * fails at once. A retry asks for the chunk under a new URL (the URL the failure named). When a
 * chunk it imports failed too, nothing but a reload helps: the caller decides.
 */
export const fetchModule: ModuleFetch = (id, attempt, lastError) => {
  const url = attempt > 0 && lastError instanceof Error ? /(https?|file):\/\/\S+?\.js/.exec(lastError.message)?.[0] : undefined;
  if (url) return import(/* @vite-ignore */ `${url}?retry=${attempt}`) as Promise<Record<string, unknown>>;
  return PAGE_LOADERS[id].load() as Promise<Record<string, unknown>>;
};

/** Loads a page's code once (concurrent callers share the attempt); a failed attempt can be made again. */
export function loadPage<K extends PageId>(id: K, attempt = 0, lastError: unknown = null, fetch: ModuleFetch = fetchModule): Promise<PageOf<K>> {
  const have = loadedPage(id);
  if (have) return Promise.resolve(have);
  let p = inFlight.get(id) as Promise<PageOf<K>> | undefined;
  if (!p) {
    p = fetch(id, attempt, lastError)
      .then((m) => {
        const page = m[PAGE_LOADERS[id].name] as PageOf<K> | undefined;
        if (!page) throw new Error(`the ${id} page's code has no ${PAGE_LOADERS[id].name}`);
        loaded.set(id, page as ComponentType<never>);
        return page;
      })
      .finally(() => inFlight.delete(id));
    inFlight.set(id, p as Promise<ComponentType<never>>);
  }
  return p;
}

/** Fetches every page's code, one after another, when the browser is idle. Failures are left for the page to retry. */
export function prefetchPages(signal: AbortSignal): void {
  const ids = Object.keys(PAGE_LOADERS) as PageId[];
  const idle = (fn: () => void) => (typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(fn, { timeout: 2_000 }) : window.setTimeout(fn, 200));
  const next = (i: number) => {
    const id = ids[i];
    if (signal.aborted) return;
    // Said on the document, for tests and diagnostics: every page's code was asked for.
    if (id === undefined) {
      document.documentElement.dataset.pagesPrefetched = 'true';
      return;
    }
    idle(() => {
      void loadPage(id)
        .catch(() => undefined)
        .then(() => next(i + 1));
    });
  };
  next(0);
}

/** Test hook: forget what was loaded. */
export function forgetLoadedPages(): void {
  loaded.clear();
  inFlight.clear();
}
