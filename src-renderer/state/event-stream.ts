import { create } from 'zustand';
import type { JobEvent } from '../../shared';

/**
 * The live event log of the jobs whose detail pages are open. High-frequency state, so it lives
 * here and not in react-query: streams append batches, the page reads one job's list.
 */

/** Merges `incoming` into `list` (both in seq order): duplicates (a resumed stream) are dropped. */
export function appendEvents(list: readonly JobEvent[], incoming: readonly JobEvent[]): readonly JobEvent[] {
  if (incoming.length === 0) return list;
  const last = list.length > 0 ? (list[list.length - 1]?.seq ?? 0) : 0;
  const fresh = incoming.filter((e) => e.seq > last);
  if (fresh.length === incoming.length && isSorted(fresh)) return fresh.length ? [...list, ...fresh] : list;
  // Out of order or overlapping: merge by seq, and keep the same list if nothing is new.
  const bySeq = new Map<number, JobEvent>();
  for (const e of list) bySeq.set(e.seq, e);
  const missing = incoming.filter((e) => !bySeq.has(e.seq));
  if (missing.length === 0) return list;
  for (const e of missing) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function isSorted(events: readonly JobEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if ((events[i]?.seq ?? 0) <= (events[i - 1]?.seq ?? 0)) return false;
  return true;
}

export type StreamState = 'connecting' | 'live' | 'ended' | 'reconnecting' | 'error';

export type JobStream = { events: readonly JobEvent[]; state: StreamState; error: string | null };

const EMPTY: JobStream = { events: [], state: 'connecting', error: null };

interface EventStreamState {
  streams: Record<string, JobStream>;
  append(jobId: string, events: readonly JobEvent[]): void;
  setState(jobId: string, state: StreamState, error?: string | null): void;
  /** Forgets a job's log (its page closed). */
  drop(jobId: string): void;
}

export const useEventStreamStore = create<EventStreamState>()((set) => ({
  streams: {},
  append: (jobId, events) =>
    set((s) => {
      const cur = s.streams[jobId] ?? EMPTY;
      const next = appendEvents(cur.events, events);
      return next === cur.events ? s : { streams: { ...s.streams, [jobId]: { ...cur, events: next } } };
    }),
  setState: (jobId, state, error = null) =>
    set((s) => {
      const cur = s.streams[jobId] ?? EMPTY;
      return { streams: { ...s.streams, [jobId]: { ...cur, state, error } } };
    }),
  drop: (jobId) =>
    set((s) => {
      if (!(jobId in s.streams)) return s;
      return { streams: Object.fromEntries(Object.entries(s.streams).filter(([id]) => id !== jobId)) };
    }),
}));

export function useJobStream(jobId: string): JobStream {
  return useEventStreamStore((s) => s.streams[jobId] ?? EMPTY);
}

/** Whether the event log follows new events, per page view (UI state). */
export const useLogFollow = create<{ follow: boolean; setFollow(f: boolean): void }>()((set) => ({
  follow: true,
  setFollow: (follow) => set({ follow }),
}));
