/** The app's pages and their hash routes (#/jobs/<id> links can be shared and bookmarked). */
export const ROUTES = {
  overview: '/',
  estimate: '/estimate',
  launch: '/launch',
  jobs: '/jobs',
  job: '/jobs/:id',
  models: '/models',
  compare: '/compare',
  settings: '/settings',
  snapshots: '/snapshots',
  snapshot: '/snapshots/:id',
  suites: '/suites',
  sweeps: '/sweeps',
  sweep: '/sweeps/:id',
} as const;

export type NavItem = { id: string; label: string; path: string };

/** The navigation, in the order of the loop: look, estimate, launch, watch, compare, configure. */
export const NAV_ITEMS: readonly NavItem[] = [
  { id: 'overview', label: 'Overview', path: ROUTES.overview },
  { id: 'estimate', label: 'Estimate', path: ROUTES.estimate },
  { id: 'launch', label: 'Launch', path: ROUTES.launch },
  { id: 'jobs', label: 'Jobs', path: ROUTES.jobs },
  { id: 'models', label: 'Models', path: ROUTES.models },
  { id: 'compare', label: 'Compare', path: ROUTES.compare },
  { id: 'suites', label: 'Suites', path: ROUTES.suites },
  { id: 'snapshots', label: 'Snapshots', path: ROUTES.snapshots },
  { id: 'sweeps', label: 'Sweeps', path: ROUTES.sweeps },
  { id: 'settings', label: 'Settings', path: ROUTES.settings },
];

export function jobPath(jobId: string): string {
  return `/jobs/${encodeURIComponent(jobId)}`;
}

/** A recorded cluster's read-only browser (pods, events, logs). */
export function snapshotPath(snapshotId: string): string {
  return `/snapshots/${encodeURIComponent(snapshotId)}`;
}

/** One sweep: its matrix, ranking and machines. */
export function sweepPath(sweepId: string): string {
  return `/sweeps/${encodeURIComponent(sweepId)}`;
}

/** An href for an <a> under the hash router. */
export function hrefOf(path: string): string {
  return `#${path}`;
}

/** Whether a nav item is the current page (Jobs stays active on a job's detail page). */
export function isActive(item: NavItem, location: string): boolean {
  if (item.path === '/') return location === '/' || location === '';
  return location === item.path || location.startsWith(`${item.path}/`);
}
