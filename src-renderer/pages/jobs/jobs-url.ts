import { JobKindSchema, JobSortSchema, JobStatusSchema, type JobKind, type JobSort, type JobStatus } from '../../../shared';

/** The Jobs page's filters, kept in the URL (`#/jobs?status=failed&q=llama&sort=-cost`) so Back and a shared link restore them. */
export type JobsView = { status: JobStatus | 'all'; kind: JobKind | 'all'; q: string; sort: JobSort };

export const DEFAULT_VIEW: JobsView = { status: 'all', kind: 'all', q: '', sort: '-created' };

/** Reads the view from the query; anything unknown falls back to its default. */
export function viewFromParams(params: URLSearchParams): JobsView {
  const status = JobStatusSchema.safeParse(params.get('status'));
  const kind = JobKindSchema.safeParse(params.get('kind'));
  const sort = JobSortSchema.safeParse(params.get('sort'));
  return {
    status: status.success ? status.data : 'all',
    kind: kind.success ? kind.data : 'all',
    q: (params.get('q') ?? '').slice(0, 200),
    sort: sort.success ? sort.data : '-created',
  };
}

/** The query for a view: defaults left out, so the plain list is plain `#/jobs`. */
export function paramsFromView(view: JobsView): URLSearchParams {
  const p = new URLSearchParams();
  if (view.status !== 'all') p.set('status', view.status);
  if (view.kind !== 'all') p.set('kind', view.kind);
  if (view.q.trim()) p.set('q', view.q);
  if (view.sort !== '-created') p.set('sort', view.sort);
  return p;
}

export type SortColumn = 'created' | 'duration' | 'cost';

/** A header click: the first sorts descending (newest, longest, dearest), the next flips it. */
export function toggleSort(current: JobSort, column: SortColumn): JobSort {
  if (current === `-${column}`) return column;
  return `-${column}`;
}

/** aria-sort of a column under the current sort. */
export function ariaSortOf(current: JobSort, column: SortColumn): 'ascending' | 'descending' | 'none' {
  if (current === column) return 'ascending';
  if (current === `-${column}`) return 'descending';
  return 'none';
}
