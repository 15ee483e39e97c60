import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { JOB_KINDS, JOB_STATUSES, JobKindSchema, type JobRecord, type JobStatus } from '../../../shared';
import { Duration, Money, RelativeTime, RunningCost } from '../../components/Format';
import { Page } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { FilterTabs, type TabItem } from '../../components/Tabs';
import { firstLine, formatCount } from '../../lib/format';
import { jobCost, jobModel, KIND_LABELS } from '../../lib/job';
import { useDebounced } from '../../queries/estimate';
import { useJobCounts, useJobList } from '../../queries/jobs';
import { hrefOf, jobPath, ROUTES } from '../../router/routes';
import { ariaSortOf, paramsFromView, toggleSort, viewFromParams, type JobsView, type SortColumn } from './jobs-url';

const ROW_HEIGHT = 38;
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

function CostCell({ job }: { job: JobRecord }) {
  const cost = jobCost(job);
  if (!cost) return <span className="muted" title="Nothing rented: an existing backend costs nothing here">—</span>;
  if (cost.type === 'running') return <RunningCost dph={cost.dph} since={cost.since} downloadUsd={cost.downloadUsd} />;
  return <Money usd={cost.usd} />;
}

/** What the row says beyond its status: the failure reason (code and first line), else the job's message. */
function NoteCell({ job }: { job: JobRecord }) {
  if (job.status === 'failed') {
    const reason = firstLine(job.error ?? job.message);
    return (
      <span className="job-note job-note-failed" title={job.error ?? job.message} data-testid="failure-reason">
        {job.error_code ? <code className="failure-code">{job.error_code}</code> : null} {reason}
      </span>
    );
  }
  const note = job.status === 'running' && job.progress?.phase ? `${job.progress.phase}${job.progress.detail ? `: ${job.progress.detail}` : ''}` : job.message;
  return (
    <span className="job-note muted" title={note}>
      {firstLine(note)}
    </span>
  );
}

function JobRow({ job, index, top }: { job: JobRecord; index: number; top: number }) {
  // A list of links (the header above names the columns); a link's name is its cells' text.
  return (
    <div role="listitem" className="vitem" style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}>
      <Link href={jobPath(job.job_id)} className="vrow" data-index={index} data-testid="job-row" data-job-id={job.job_id}>
        <span>
          <StatusBadge status={job.status} />
        </span>
        <span>{KIND_LABELS[job.kind]}</span>
        <span title={jobModel(job) ?? undefined}>{jobModel(job) ?? <span className="muted">—</span>}</span>
        <span>
          <RelativeTime iso={job.created_at} />
        </span>
        <span className="right">{job.started_at ? <Duration since={job.started_at} until={job.finished_at} /> : <span className="muted">not started</span>}</span>
        <span className="right">
          <CostCell job={job} />
        </span>
        <NoteCell job={job} />
        <span className="muted mono" title={job.job_id}>
          {job.job_id}
        </span>
      </Link>
    </div>
  );
}

const SORT_WORDS: Record<SortColumn, { descending: string; ascending: string }> = {
  created: { descending: 'newest first', ascending: 'oldest first' },
  duration: { descending: 'longest first', ascending: 'shortest first' },
  cost: { descending: 'dearest first', ascending: 'cheapest first' },
};

/** A column title that sorts the whole list (on the server) by it; the state is spoken and drawn. */
function SortHeader({ column, label, sort, onSort, className }: { column: SortColumn; label: string; sort: JobsView['sort']; onSort: (c: SortColumn) => void; className?: string }) {
  const state = ariaSortOf(sort, column);
  return (
    <span className={className}>
      <button type="button" className="sort-button" onClick={() => onSort(column)} data-testid={`jobs-sort-${column}`} data-sort={state}>
        {label}
        <span className="visually-hidden">{state === 'none' ? ', sort by it' : `, sorted ${SORT_WORDS[column][state]}`}</span>
        <span className="sort-mark" aria-hidden="true">
          {state === 'ascending' ? '▲' : state === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </span>
  );
}

type ListQuery = ReturnType<typeof useJobList>;

/** The virtualised rows (only those on screen are in the DOM), paged in by cursor while scrolling. */
function JobList({ jobs, list, view, total, orderText, onSort }: { jobs: readonly JobRecord[]; list: ListQuery; view: JobsView; total: number | null; orderText: string; onSort: (c: SortColumn) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: jobs.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;

  // Cursor paging: fetch the next page when the last rendered row is near the end of what we have.
  useEffect(() => {
    if (lastIndex >= jobs.length - 20 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [lastIndex, jobs.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  // Arrow keys move between rows; Enter opens (it is a link).
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    if (!(e.target as HTMLElement).classList.contains('vrow')) return;
    const current = Number((document.activeElement as HTMLElement | null)?.dataset.index ?? -1);
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? jobs.length - 1 : Math.max(0, Math.min(jobs.length - 1, current + (e.key === 'ArrowDown' ? 1 : -1)));
    e.preventDefault();
    virtualizer.scrollToIndex(next, { align: 'auto' });
    requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`[data-index="${next}"]`)?.focus());
  };

  return (
    <div
      className="vlist"
      ref={scroller}
      // A short list (every job loaded) is as tall as its rows, not a window-high empty box; a long one fills the window.
      style={hasNextPage ? undefined : { height: `min(calc(100vh - 260px), ${virtualizer.getTotalSize() + ROW_HEIGHT + 2}px)`, minHeight: 0 }}
      onKeyDown={onKeyDown}
      data-testid="jobs-list"
      aria-busy={list.isFetching && !isFetchingNextPage}
    >
      <div className="vhead">
        <span>Status</span>
        <span>Kind</span>
        <span>Model</span>
        <SortHeader column="created" label="Created" sort={view.sort} onSort={onSort} />
        <SortHeader column="duration" label="Duration" sort={view.sort} onSort={onSort} className="right" />
        <SortHeader column="cost" label="Cost" sort={view.sort} onSort={onSort} className="right" />
        <span>Message</span>
        <span>Job ID</span>
      </div>
      <div role="list" aria-label={`Jobs, ${orderText} (${formatCount(total ?? jobs.length)})`} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const job = jobs[item.index];
          return job ? <JobRow key={job.job_id} job={job} index={item.index} top={item.start} /> : null;
        })}
      </div>
      {isFetchingNextPage ? (
        <div className="loading" style={{ height: ROW_HEIGHT }} role="status">
          Loading more…
        </div>
      ) : null}
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
      <div className="toolbar jobs-toolbar">
        <label className="search-box">
          <span className="visually-hidden">Search jobs</span>
          <input
            type="search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') setView({ q: draft });
            }}
            placeholder="Search id, model, backend, message…"
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
              setView({ kind: parsed.success ? parsed.data : 'all' });
            }}
            data-testid="kind-filter"
          >
            <option value="all">All kinds{allCounts.data ? ` (${formatCount(allCounts.data.total)})` : ''}</option>
            {JOB_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
                {allCounts.data ? ` (${formatCount(allCounts.data.by_kind[k])})` : ''}
              </option>
            ))}
          </select>
        </label>
        <span className="spacer" />
        <span className="muted num jobs-summary" aria-live="polite" data-testid="jobs-summary">
          {shownTotal === null ? '' : `${formatCount(shownTotal, view.q.trim() ? 'match' : 'job', view.q.trim() ? 'matches' : 'jobs')}, ${orderText}`}
        </span>
      </div>
      <FilterTabs items={tabs} value={view.status} onChange={(status) => setView({ status })} label="Filter by status" testId="status-tabs" />

      {list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.isPending ? (
        <Loading label="Loading jobs…" height={300} />
      ) : jobs.length === 0 ? (
        !filtered ? (
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
        ) : (
          <EmptyState
            title={view.q.trim() ? `No job matches “${view.q.trim()}”${view.status !== 'all' ? ` among ${STATUS_LABELS[view.status].toLowerCase()} jobs` : ''}` : 'No jobs match these filters'}
            testId="jobs-no-match"
            action={
              <button
                type="button"
                className="button"
                onClick={() => {
                  setDraft('');
                  lastUrlQ.current = '';
                  setView({ status: 'all', kind: 'all', q: '' });
                }}
              >
                Show all jobs
              </button>
            }
          >
            <p>The search looks at the job id, model, backend URL or rented GPU, the message or error, and the error code.</p>
          </EmptyState>
        )
      ) : (
        <JobList key={viewKey} jobs={jobs} list={list} view={view} total={shownTotal} orderText={orderText} onSort={(c) => setView({ sort: toggleSort(view.sort, c) })} />
      )}
    </Page>
  );
}
