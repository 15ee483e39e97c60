import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { JobEvent } from '../../../shared';
import { formatClock, formatDuration } from '../../lib/format';
import type { StreamState } from '../../state/event-stream';
import { useLogFollow } from '../../state/event-stream';

const ROW = 22;

function labelsText(e: JobEvent): string {
  const parts = Object.entries(e.labels)
    .filter(([, v]) => v !== null && v !== '')
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.join(' ');
}

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  ended: 'complete',
  reconnecting: 'reconnecting…',
  error: 'stream failed',
};

/**
 * The job's events, virtualised (a chatty job logs thousands), following the newest unless
 * paused. Scrolling up pauses; scrolling back to the bottom resumes.
 */
export function EventLog({ events, state, error }: { events: readonly JobEvent[]; state: StreamState; error: string | null }) {
  const follow = useLogFollow((s) => s.follow);
  const setFollow = useLogFollow((s) => s.setFollow);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 20 });

  useEffect(() => {
    if (follow && events.length > 0) virtualizer.scrollToIndex(events.length - 1, { align: 'end' });
  }, [follow, events.length, virtualizer]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW * 2;
    if (!atBottom && follow) setFollow(false);
    else if (atBottom && !follow) setFollow(true);
  };

  return (
    <section className="panel" data-testid="event-log" data-stream-state={state}>
      <header className="panel-head">
        <h2>Events</h2>
        <span className={`badge ${state === 'live' ? 'badge-info' : state === 'ended' ? 'badge-ok' : state === 'error' ? 'badge-error' : 'badge-warn'}`} data-testid="stream-state">
          {state === 'live' ? <span className="spinner" aria-hidden="true" style={{ marginRight: 6, width: 8, height: 8 }} /> : null}
          {STATE_TEXT[state]}
        </span>
        <span className="muted num">{events.length} events</span>
        <div className="panel-actions">
          <button type="button" className="button button-small" aria-pressed={!follow} onClick={() => setFollow(!follow)} data-testid="log-follow">
            {follow ? 'Pause auto-scroll' : 'Follow new events'}
          </button>
        </div>
      </header>
      {error ? <p className="field-error">{error}</p> : null}
      <div className="log" ref={scroller} onScroll={onScroll} role="log" aria-live="off" aria-label="Job events" tabIndex={0}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const e = events[item.index];
            if (!e) return null;
            const cls = `log-row ev-${e.status}${e.event.startsWith('job.') ? ' ev-job' : ''}`;
            const detail = [e.message, labelsText(e)].filter(Boolean).join('  ');
            return (
              <div key={e.seq} className={cls} style={{ transform: `translateY(${item.start}px)`, height: ROW }} data-testid="event-row" data-event={e.event} data-status={e.status}>
                <span className="muted">{formatClock(e.recorded_at)}</span>
                <span className="ev-status">{e.status}</span>
                <span title={e.event}>{e.event}</span>
                <span title={detail}>
                  {e.duration_ms !== null ? <span className="muted">{formatDuration(e.duration_ms)} </span> : null}
                  {detail}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
