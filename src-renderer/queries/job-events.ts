import { useEffect } from 'react';
import { isStreamReset, isTerminal, type JobEvent, type JobStatus } from '../../shared';
import { toBenchdeskApiError } from '../../shared/client';
import type { RendererApi } from '../bridge';
import { useApi } from '../bridge';
import { useEventStreamStore } from '../state/event-stream';

/** Delay before reopening a dropped stream; doubles up to the cap. */
const RECONNECT_MS = [500, 1000, 2000, 5000] as const;

export type StreamSink = {
  append(events: readonly JobEvent[]): void;
  /** The server lost this stream's place (it was replaced or restarted): forget the log, it comes again. */
  reset(): void;
  state(state: 'connecting' | 'live' | 'ended' | 'reconnecting' | 'error', error?: string | null): void;
};

/**
 * Follows one job's events: the whole log so far, then live (IPC push in the app, SSE in
 * browser mode) until the job's terminal event. Events arriving in a burst are handed over once
 * per animation frame, so a chatty job does not re-render the page per event. A dropped stream
 * resumes after the last seq seen. Resolves when the stream ends or `signal` aborts.
 */
export async function followJobEvents(api: RendererApi, jobId: string, sink: StreamSink, signal: AbortSignal, schedule: (fn: () => void) => void = requestAnimationFrame): Promise<void> {
  let lastSeq = 0;
  let pending: JobEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    sink.append(batch);
  };
  for (let attempt = 0; !signal.aborted; attempt++) {
    sink.state(attempt === 0 ? 'connecting' : 'reconnecting');
    try {
      let first = true;
      for await (const event of api.streamJobEvents({ job_id: jobId, after: lastSeq }, { signal })) {
        if (first) {
          sink.state('live');
          first = false;
        }
        if (isStreamReset(event)) {
          pending = [];
          lastSeq = 0;
          sink.reset();
          sink.state('live');
          continue;
        }
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        attempt = 0;
        pending.push(event);
        if (!scheduled) {
          scheduled = true;
          schedule(flush);
        }
      }
      flush();
      if (!signal.aborted) sink.state('ended');
      return;
    } catch (err) {
      flush();
      if (signal.aborted) return;
      const problem = toBenchdeskApiError(err);
      // A 4xx is an answer (unknown job, no access): reconnecting would not change it.
      if (problem.status >= 400 && problem.status < 500) {
        sink.state('error', problem.message);
        return;
      }
      sink.state('reconnecting', problem.message);
      const delay = RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)] ?? 5000;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        }, { once: true });
      });
    }
  }
}

/** Keeps the event-stream store filled for `jobId` while the calling component is mounted. */
export function useJobEventStream(jobId: string, status: JobStatus | undefined): void {
  const api = useApi();
  const append = useEventStreamStore((s) => s.append);
  const setState = useEventStreamStore((s) => s.setState);
  const drop = useEventStreamStore((s) => s.drop);
  // A terminal job's log is read once; a live one is followed. Either way the stream ends itself.
  const known = status !== undefined;
  useEffect(() => {
    if (!known) return;
    const controller = new AbortController();
    const sink: StreamSink = { append: (events) => append(jobId, events), reset: () => drop(jobId), state: (s, e) => setState(jobId, s, e ?? null) };
    void followJobEvents(api, jobId, sink, controller.signal);
    return () => {
      controller.abort();
      drop(jobId);
    };
  }, [api, jobId, known, append, setState, drop]);
}

export { isTerminal };
