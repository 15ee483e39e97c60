import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { JobEvent } from '../../../shared';
import { CopyButton } from '../../components/CopyButton';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatAbsolute, formatClock, formatCount, formatDuration } from '../../lib/format';
import type { StreamState } from '../../state/event-stream';
import { useLogFollow } from '../../state/event-stream';
import { eventLevel, filterEvents, labelsText, type EventFilter } from './event-filter';

/** The log's height in px (styles.css .log), and the least an ended log keeps (room for its empty-state line). */
const LOG_HEIGHT = 420;
const LOG_MIN_HEIGHT = 40;

/** Height of a collapsed row; an expanded one is measured. */
const ROW = 24;

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  ended: 'complete',
  reconnecting: 'reconnecting…',
  error: 'stream failed',
};

const LEVEL_OPTIONS = [
  { value: 'all', label: 'All', testId: 'log-level-all' },
  { value: 'warn', label: 'Warnings and errors', testId: 'log-level-warn' },
  { value: 'error', label: 'Errors', testId: 'log-level-error' },
] as const;

/** The whole event, as JSON, for the copy button. */
function eventJson(e: JobEvent): string {
  return JSON.stringify(e, null, 2);
}

function EventDetails({ e }: { e: JobEvent }) {
  const labels = Object.entries(e.labels).filter(([, v]) => v !== null && v !== '');
  return (
    <div className="log-details" data-testid="event-details">
      {e.message ? <pre className="log-message">{e.message}</pre> : <p className="muted">No message.</p>}
      <dl className="log-facts">
        <dt>Event</dt>
        <dd className="mono">{e.event}</dd>
        <dt>Status</dt>
        <dd>{e.status}</dd>
        <dt>Time</dt>
        <dd>{formatAbsolute(e.recorded_at)}</dd>
        {e.duration_ms !== null ? (
          <>
            <dt>Took</dt>
            <dd>{formatDuration(e.duration_ms)}</dd>
          </>
        ) : null}
        {e.error_type ? (
          <>
            <dt>Error type</dt>
            <dd className="mono">{e.error_type}</dd>
          </>
        ) : null}
        {labels.map(([k, v]) => (
          <div key={k} className="log-label">
            <dt className="mono">{k}</dt>
            <dd className="mono">{String(v)}</dd>
          </div>
        ))}
        <dt>Seq</dt>
        <dd className="num">{e.seq}</dd>
      </dl>
      <CopyButton text={eventJson(e)} label="Copy event as JSON" testId="event-copy" />
    </div>
  );
}

/** One event of the log: its line (a button that opens it) and, opened, its whole message and labels. */
function EventRow({
  e,
  index,
  start,
  expanded,
  measure,
  onToggle,
}: {
  e: JobEvent;
  index: number;
  start: number;
  expanded: boolean;
  measure: (node: Element | null) => void;
  onToggle: (seq: number) => void;
}) {
  const level = eventLevel(e);
  const detail = [e.message, labelsText(e)].filter(Boolean).join('  ');
  return (
    <div
      ref={measure}
      data-index={index}
      className={`log-row ev-${e.status} lvl-${level}${e.event.startsWith('job.') ? ' ev-job' : ''}${expanded ? ' open' : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      data-testid="event-row"
      data-event={e.event}
      data-status={e.status}
    >
      <button type="button" className="log-summary" aria-expanded={expanded} data-index={index} onClick={() => onToggle(e.seq)} data-testid="event-toggle">
        <span className="muted">{formatClock(e.recorded_at)}</span>
        <span className="ev-status">{level === 'warn' && e.status !== 'error' ? 'warn' : e.status}</span>
        <span className="ev-name">{e.event}</span>
        <span className="ev-detail">
          {e.duration_ms !== null ? <span className="muted">{formatDuration(e.duration_ms)} </span> : null}
          {detail}
        </span>
      </button>
      {expanded ? <EventDetails e={e} /> : null}
    </div>
  );
}

/** The log's title row (state, count, follow) and its filters (level, text). */
function LogHead({
  state,
  shownCount,
  total,
  counts,
  follow,
  setFollow,
  goToLast,
  filter,
  setFilter,
}: {
  state: StreamState;
  shownCount: number;
  total: number;
  counts: { errors: number; warnings: number };
  follow: boolean;
  setFollow: (f: boolean) => void;
  goToLast: () => void;
  filter: EventFilter;
  setFilter: (f: (current: EventFilter) => EventFilter) => void;
}) {
  return (
    <>
    <header className="panel-head">
      <h2>Events</h2>
      <span className={`badge ${state === 'live' ? 'badge-info' : state === 'ended' ? 'badge-ok' : state === 'error' ? 'badge-error' : 'badge-warn'}`} data-testid="stream-state">
        {state === 'live' ? <span className="spinner" aria-hidden="true" style={{ marginRight: 6, width: 8, height: 8 }} /> : null}
        {STATE_TEXT[state]}
      </span>
      <span className="muted num" data-testid="event-count">
        {shownCount === total ? formatCount(total, 'event') : `${formatCount(shownCount)} of ${formatCount(total, 'event')}`}
      </span>
      <div className="panel-actions">
        {state === 'ended' ? (
          // A finished job logs nothing more: nothing to follow, only the end to go to.
          <button type="button" className="button button-small" onClick={goToLast} data-testid="log-follow">
            Go to the last event
          </button>
        ) : (
          <button type="button" className="button button-small" aria-pressed={!follow} onClick={() => setFollow(!follow)} data-testid="log-follow">
            {follow ? 'Pause auto-scroll' : 'Follow new events'}
          </button>
        )}
      </div>
    </header>
    <div className="toolbar log-toolbar">
      <ToggleGroup
        label="Show events"
        value={filter.level}
        onChange={(level) => setFilter((f) => ({ ...f, level }))}
        options={LEVEL_OPTIONS.map((o) => ({
          ...o,
          label: o.value === 'error' ? `Errors (${formatCount(counts.errors)})` : o.value === 'warn' ? `Warnings and errors (${formatCount(counts.errors + counts.warnings)})` : o.label,
        }))}
        testId="log-level"
      />
      <label className="search-box">
        <span className="visually-hidden">Filter events by text</span>
        <input type="search" value={filter.text} onChange={(e) => setFilter((f) => ({ ...f, text: e.target.value }))} placeholder="Filter by name, message or label" data-testid="log-filter" />
      </label>
    </div>
    </>
  );
}

/**
 * The job's events, virtualised (a chatty job logs thousands). Click or Enter on a row opens its
 * full message and labels; the log filters by level and text. It follows the newest event unless
 * paused: scrolling up or opening a row pauses it, so what is being read never moves; scrolling
 * back to the bottom (or "Follow new events") resumes.
 */
export function EventLog({ events, state, error }: { events: readonly JobEvent[]; state: StreamState; error: string | null }) {
  const follow = useLogFollow((s) => s.follow);
  const setFollow = useLogFollow((s) => s.setFollow);
  const [filter, setFilter] = useState<EventFilter>({ level: 'all', text: '' });
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const shown = useMemo(() => filterEvents(events, filter), [events, filter]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 20,
    getItemKey: (i) => shown[i]?.seq ?? i,
  });

  useEffect(() => {
    if (follow && shown.length > 0) virtualizer.scrollToIndex(shown.length - 1, { align: 'end' });
  }, [follow, shown.length, virtualizer]);

  // Another filter is another list: start at its newest event when following, else at its top.
  const filterKey = `${filter.level}|${filter.text}`;
  useEffect(() => {
    if (!follow && scroller.current) scroller.current.scrollTop = 0;
  }, [filterKey]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW * 2;
    if (!atBottom && follow) setFollow(false);
    else if (atBottom && !follow && open.size === 0) setFollow(true);
  };

  const toggle = (seq: number) => {
    setFollow(false);
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  };

  // Up/Down move between rows, Home/End to the first and last; Enter or Space opens (it is a button).
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const target = e.target as HTMLElement;
    if (!target.classList.contains('log-summary')) return;
    const current = Number(target.dataset.index ?? -1);
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? shown.length - 1 : Math.max(0, Math.min(shown.length - 1, current + (e.key === 'ArrowDown' ? 1 : -1)));
    e.preventDefault();
    setFollow(false);
    virtualizer.scrollToIndex(next, { align: 'auto' });
    requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`.log-summary[data-index="${next}"]`)?.focus());
  };

  const counts = useMemo(() => {
    let errors = 0;
    let warnings = 0;
    for (const e of events) {
      const l = eventLevel(e);
      if (l === 'error') errors++;
      else if (l === 'warn') warnings++;
    }
    return { errors, warnings };
  }, [events]);

  return (
    <section className="panel" data-testid="event-log" data-stream-state={state}>
      <LogHead
        state={state}
        shownCount={shown.length}
        total={events.length}
        counts={counts}
        follow={follow}
        setFollow={setFollow}
        goToLast={() => shown.length > 0 && virtualizer.scrollToIndex(shown.length - 1, { align: 'end' })}
        filter={filter}
        setFilter={setFilter}
      />
      {error ? <p className="field-error">{error}</p> : null}
      <div
        className="log"
        ref={scroller}
        // A live log keeps its fixed height (nothing below moves while events stream in); an ended one
        // that holds a few events shrinks to them instead of leaving a tall empty box.
        style={state === 'ended' ? { height: Math.min(LOG_HEIGHT, Math.max(LOG_MIN_HEIGHT, virtualizer.getTotalSize() + 2)) } : undefined}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        role="log" aria-live="off" aria-label="Job events" data-testid="event-scroller">
        {shown.length === 0 ? <p className="muted log-empty">{events.length === 0 ? 'No events yet.' : 'No event matches the filter.'}</p> : null}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const e = shown[item.index];
            return e ? <EventRow key={item.key} e={e} index={item.index} start={item.start} expanded={open.has(e.seq)} measure={virtualizer.measureElement} onToggle={toggle} /> : null;
          })}
        </div>
      </div>
    </section>
  );
}
