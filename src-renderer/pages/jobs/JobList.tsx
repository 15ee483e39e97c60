import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type CSSProperties, type KeyboardEvent } from 'react';
import { Link } from 'wouter';
import { jobAgent, jobQuestion, type JobRecord } from '../../../shared';
import { Duration, Money, RelativeTime, RunningCost } from '../../components/Format';
import { StatusBadge } from '../../components/StatusBadge';
import { firstLine, formatCount } from '../../lib/format';
import { jobCost, jobModel, KIND_LABELS } from '../../lib/job';
import type { useJobList } from '../../queries/jobs';
import { jobPath } from '../../router/routes';
import { gridTemplate, type JobColumnId } from './job-columns';
import { ariaSortOf, type JobsView, type SortColumn } from './jobs-url';

export const ROW_HEIGHT = 38;

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

/** One cell of a row, by column. */
function Cell({ column, job, sweep }: { column: JobColumnId; job: JobRecord; sweep: string | undefined }) {
  switch (column) {
    case 'status':
      return <StatusBadge status={job.status} />;
    case 'kind':
      return <>{KIND_LABELS[job.kind]}</>;
    case 'model':
      return <>{jobModel(job) ?? <span className="muted">—</span>}</>;
    case 'question': {
      const q = jobQuestion(job);
      return q ? <>{q}</> : <span className="muted">—</span>;
    }
    case 'agent':
      return <>{jobAgent(job) ?? <span className="muted">—</span>}</>;
    case 'sweep':
      return sweep ? <>{sweep}</> : <span className="muted">—</span>;
    case 'created':
      return <RelativeTime iso={job.created_at} />;
    case 'duration':
      return job.started_at ? <Duration since={job.started_at} until={job.finished_at} /> : <span className="muted">not started</span>;
    case 'cost':
      return <CostCell job={job} />;
    case 'message':
      return <NoteCell job={job} />;
    case 'id':
      return <span className="muted mono">{job.job_id}</span>;
  }
}

/** The text a cell shows in full on hover (the row cuts long ones). */
function titleOf(column: JobColumnId, job: JobRecord, sweep: string | undefined): string | undefined {
  if (column === 'model') return jobModel(job) ?? undefined;
  if (column === 'question') return jobQuestion(job) ?? undefined;
  if (column === 'sweep') return sweep;
  if (column === 'id') return job.job_id;
  return undefined;
}

function JobRow({ job, index, top, columns, sweep }: { job: JobRecord; index: number; top: number; columns: readonly JobColumnId[]; sweep: string | undefined }) {
  // A list of links (the header above names the columns); a link's name is its cells' text.
  return (
    <div role="listitem" className="vitem" style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}>
      <Link href={jobPath(job.job_id)} className="vrow" data-index={index} data-testid="job-row" data-job-id={job.job_id}>
        {columns.map((c) => (
          <span key={c} className={`col-${c}${c === 'duration' || c === 'cost' ? ' right' : ''}`} title={titleOf(c, job, sweep)}>
            <Cell column={c} job={job} sweep={sweep} />
          </span>
        ))}
      </Link>
    </div>
  );
}

const HEADERS: Record<JobColumnId, string> = {
  status: 'Status',
  kind: 'Kind',
  model: 'Model',
  question: 'Question',
  agent: 'Agent',
  sweep: 'Sweep',
  created: 'Created',
  duration: 'Duration',
  cost: 'Cost',
  message: 'Message',
  id: 'Job ID',
};

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
export function JobList({
  jobs,
  list,
  view,
  total,
  orderText,
  onSort,
  columns,
  sweepOf,
}: {
  jobs: readonly JobRecord[];
  list: ListQuery;
  view: JobsView;
  total: number | null;
  orderText: string;
  onSort: (c: SortColumn) => void;
  columns: readonly JobColumnId[];
  sweepOf: ReadonlyMap<string, string>;
}) {
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
      style={{ '--jobs-grid': gridTemplate(columns), ...(hasNextPage ? {} : { height: `min(calc(100vh - 260px), ${virtualizer.getTotalSize() + ROW_HEIGHT + 2}px)`, minHeight: 0 }) } as CSSProperties}
      onKeyDown={onKeyDown}
      data-testid="jobs-list"
      aria-busy={list.isFetching && !isFetchingNextPage}
    >
      <div className="vhead">
        {columns.map((c) =>
          c === 'created' || c === 'duration' || c === 'cost' ? (
            <SortHeader key={c} column={c} label={HEADERS[c]} sort={view.sort} onSort={onSort} className={c === 'created' ? undefined : 'right'} />
          ) : (
            <span key={c} className={`col-${c}`}>
              {HEADERS[c]}
            </span>
          ),
        )}
      </div>
      <div role="list" aria-label={`Jobs, ${orderText} (${formatCount(total ?? jobs.length)})`} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const job = jobs[item.index];
          return job ? <JobRow key={job.job_id} job={job} index={item.index} top={item.start} columns={columns} sweep={sweepOf.get(job.job_id)} /> : null;
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

