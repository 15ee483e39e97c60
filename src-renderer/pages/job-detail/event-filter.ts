import type { JobEvent } from '../../../shared';

/** How much an event needs attention: a failed step, something off that did not fail the job, or routine. */
export type EventLevel = 'error' | 'warn' | 'normal';

/**
 * Steps that report something off without failing: a cleanup or recovery after a problem, a cancel,
 * the spend limit, the agent falling back or writing to stderr, a machine left running or orphaned.
 */
const WARN_EVENTS: ReadonlySet<string> = new Set([
  'job.cleanup',
  'job.recover',
  'job.cancel_requested',
  'cost.limit_reached',
  'agent.fallback',
  'agent.stderr',
  'marketplace.orphan',
  'marketplace.instance.kept',
]);

export function eventLevel(e: Pick<JobEvent, 'event' | 'status' | 'error_type'>): EventLevel {
  if (e.status === 'error' || e.event === 'job.failed') return 'error';
  if (WARN_EVENTS.has(e.event) || e.error_type) return 'warn';
  return 'normal';
}

/** The labels as `key=value` words (empty ones left out). */
export function labelsText(e: Pick<JobEvent, 'labels'>): string {
  return Object.entries(e.labels)
    .filter(([, v]) => v !== null && v !== '')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

export type EventFilter = { level: 'all' | 'warn' | 'error'; text: string };

/** The events shown: at least the level asked for, and containing every word of the text (in the name, message or labels). */
export function filterEvents(events: readonly JobEvent[], filter: EventFilter): readonly JobEvent[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (filter.level === 'all' && words.length === 0) return events;
  return events.filter((e) => {
    const level = eventLevel(e);
    if (filter.level === 'error' && level !== 'error') return false;
    if (filter.level === 'warn' && level === 'normal') return false;
    if (words.length === 0) return true;
    const hay = `${e.event} ${e.message ?? ''} ${labelsText(e)} ${e.error_type ?? ''}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
