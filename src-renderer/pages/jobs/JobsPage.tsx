import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { JOB_KINDS, JOB_STATUSES, JobKindSchema, type JobCounts, type JobKind, type JobStatus } from '../../../shared';
import { Page } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { FilterTabs, type TabItem } from '../../components/Tabs';
import { useWindowWidth } from '../../components/useWindowWidth';
import { formatCount } from '../../lib/format';
import { KIND_LABELS } from '../../lib/job';
import { useDebounced } from '../../queries/estimate';
import { useJobCounts, useJobList } from '../../queries/jobs';
import { useSweeps } from '../../queries/sweeps';
import { hrefOf, ROUTES } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { ColumnsMenu } from './ColumnsMenu';
import { shownColumns } from './job-columns';
import { JobList } from './JobList';
import { paramsFromView, toggleSort, viewFromParams, type JobsView } from './jobs-url';

export const JOBS_MOUNT_MARK = 'benchdesk:jobs-mount';
export const JOBS_ROWS_MARK = 'benchdesk:jobs-rows';
export const JOBS_FIRST_RENDER_MEASURE = 'benchdesk:jobs-first-render';
type StatusTab = JobStatus | 'all';

const STATUS_LABELS: Record<StatusTab, string> = {
  all: 'All',
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** No job yet, or none that matches: what to do next. */
function NoJobs({ view, filtered, onShowAll }: { view: JobsView; filtered: boolean; onShowAll: () => void }) {
  if (!filtered) {
    return (
      <EmptyState
        title="No jobs yet"
        action={
          <a className="button button-primary" href={hrefOf(ROUTES.launch)}>
            Launch a benchmark
          </a>
        }
      >
        <p>Jobs you launch here, from the CLI or over the API show up in this list.</p>
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title={view.q.trim() ? `No job matches “${view.q.trim()}”${view.status !== 'all' ? ` among ${STATUS_LABELS[view.status].toLowerCase()} jobs` : ''}` : 'No jobs match these filters'}
      testId="jobs-no-match"
      action={
        <button type="button" className="button" onClick={onShowAll}>
          Show all jobs
        </button>
      }
    >
      <p>The search looks at the job id, model, backend URL or rented GPU, the message or error, the error code, the question and the agent.</p>
    </EmptyState>
  );
}

/** Job id → the name of the sweep that ran it (sweeps are few; read only while the Sweep column shows). */
function useSweepNames(enabled: boolean): ReadonlyMap<string, string> {
  const sweeps = useSweeps(enabled);
  return useMemo(() => {
    const map = new Map<string, string>();
    for (const s of sweeps.data?.sweeps ?? []) for (const c of s.cells) for (const id of c.job_ids) map.set(id, s.name);
    return map;
  }, [sweeps.data]);
}

/** Search (every word must occur), the kind filter with its counts, what is shown, and the columns. */
function JobsToolbar({
  draft,
  setDraft,
  onSearch,
  view,
  setKind,
  allCounts,
  summary,
  width,
}: {
  draft: string;
  setDraft: (q: string) => void;
  onSearch: () => void;
  view: JobsView;
  setKind: (kind: JobKind | 'all') => void;
  allCounts: JobCounts | undefined;
  summary: string;
  width: number;
}) {
  return (
    <div className="toolbar jobs-toolbar">
      <label className="search-box">
        <span className="visually-hidden">Search jobs</span>
        <input
          type="search"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onSearch();
          }}
          placeholder="Search question, model, agent, backend, message, error…"
          maxLength={200}
          data-testid="jobs-search"
        />
      </label>
      <label className="check">
        Kind
        <select
          value={view.kind}
          onChange={(e) => {
            const parsed = JobKindSchema.safeParse(e.target.value);
            setKind(parsed.success ? parsed.data : 'all');
          }}
          data-testid="kind-filter"
        >
          <option value="all">All kinds{allCounts ? ` (${formatCount(allCounts.total)})` : ''}</option>
          {JOB_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
              {allCounts ? ` (${formatCount(allCounts.by_kind[k])})` : ''}
            </option>
          ))}
        </select>
      </label>
      <ColumnsMenu width={width} />
      <span className="spacer" />
      <span className="muted num jobs-summary" aria-live="polite" data-testid="jobs-summary">
        {summary}
      </span>
    </div>
  );
}

export function JobsPage() {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => viewFromParams(params), [params]);
  const setView = (patch: Partial<JobsView>) => setParams(paramsFromView({ ...view, ...patch }), { replace: true });
  // The search box shows what is typed at once; the URL (and the request) follow once typing pauses.
  const [draft, setDraft] = useState(view.q);
  const settledDraft = useDebounced(draft, 250);
  const lastUrlQ = useRef(view.q);
  useEffect(() => {
    // Back/forward or a shared link changed the URL: the box follows it.
    if (view.q !== lastUrlQ.current) {
      lastUrlQ.current = view.q;
      setDraft(view.q);
    }
  }, [view.q]);
  useEffect(() => {
    if (settledDraft !== view.q) {
      lastUrlQ.current = settledDraft;
      setView({ q: settledDraft });
    }
  }, [settledDraft]);

  const width = useWindowWidth();
  const chosenColumns = useUiStore((s) => s.jobColumns);
  const columns = useMemo(() => shownColumns(width, chosenColumns), [width, chosenColumns]);
  const sweepOf = useSweepNames(columns.includes('sweep'));
  const filters = { status: view.status === 'all' ? undefined : view.status, kind: view.kind === 'all' ? undefined : view.kind, q: view.q, sort: view.sort };
  const list = useJobList(filters);
  const counts = useJobCounts(filters.kind, view.q);
  const allCounts = useJobCounts(undefined, view.q);
  const jobs = useMemo(() => {
    // A cost sort ranks machines still billing by their cost at the moment of each page: a job can
    // move between pages; show it once.
    const seen = new Set<string>();
    return (list.data?.pages.flatMap((p) => p.jobs) ?? []).filter((j) => (seen.has(j.job_id) ? false : (seen.add(j.job_id), true)));
  }, [list.data]);
  // Performance API marks for the 10,000-job benchmark (e2e/bench-jobs-render.mjs): page mount →
  // first rows on screen (the frame after they are committed).
  const measured = useRef(false);
  useEffect(() => {
    performance.mark(JOBS_MOUNT_MARK);
  }, []);
  useEffect(() => {
    if (measured.current || jobs.length === 0) return;
    measured.current = true;
    requestAnimationFrame(() => {
      performance.mark(JOBS_ROWS_MARK);
      performance.measure(JOBS_FIRST_RENDER_MEASURE, JOBS_MOUNT_MARK, JOBS_ROWS_MARK);
    });
  }, [jobs.length]);

  const tabs: TabItem<StatusTab>[] = [
    // null shows "…" while loading; undefined hides the count when it could not be read.
    { value: 'all', label: STATUS_LABELS.all, count: counts.isError ? undefined : (counts.data?.total ?? null) },
    ...JOB_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s], count: counts.isError ? undefined : (counts.data?.by_status[s] ?? null) })),
  ];

  // Another filter, search or order is another list, with its own scroll position: it starts at the top.
  const viewKey = `${view.status}|${view.kind}|${view.q}|${view.sort}`;
  const filtered = view.status !== 'all' || view.kind !== 'all' || view.q.trim() !== '';
  const shownTotal = counts.data ? (view.status === 'all' ? counts.data.total : counts.data.by_status[view.status]) : null;
  const orderText = { '-created': 'newest first', created: 'oldest first', '-duration': 'longest first', duration: 'shortest first', '-cost': 'dearest first', cost: 'cheapest first' }[view.sort];

  return (
    <Page
      title="Jobs"
      subtitle="Every job; search and sort run over all of them. Status changes arrive live."
      testId="page-jobs"
      actions={
        <Link href={ROUTES.launch} className="button button-primary">
          Launch a job
        </Link>
      }
    >
      <JobsToolbar
        draft={draft}
        setDraft={setDraft}
        onSearch={() => setView({ q: draft })}
        view={view}
        setKind={(kind) => setView({ kind })}
        allCounts={allCounts.data}
        summary={shownTotal === null ? '' : `${formatCount(shownTotal, view.q.trim() ? 'match' : 'job', view.q.trim() ? 'matches' : 'jobs')}, ${orderText}`}
        width={width}
      />
      <FilterTabs items={tabs} value={view.status} onChange={(status) => setView({ status })} label="Filter by status" testId="status-tabs" />

      {list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.isPending ? (
        <Loading label="Loading jobs…" height={300} />
      ) : jobs.length === 0 ? (
        <NoJobs
          view={view}
          filtered={filtered}
          onShowAll={() => {
            setDraft('');
            lastUrlQ.current = '';
            setView({ status: 'all', kind: 'all', q: '' });
          }}
        />
      ) : (
        <JobList key={viewKey} jobs={jobs} list={list} view={view} total={shownTotal} orderText={orderText} onSort={(c) => setView({ sort: toggleSort(view.sort, c) })} columns={columns} sweepOf={sweepOf} />
      )}
    </Page>
  );
}
