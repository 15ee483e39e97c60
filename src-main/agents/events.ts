import type { AgentEvent } from '../../shared/agents';
import type { EventLabels } from '../../shared/jobs';
import { AgentError } from './errors';

export type { AgentEvent };

/**
 * Where agents report what they do. The engine adds the job id and stores each event; the
 * shape is the job event of design §3 without seq/job_id/recorded_at.
 */
export type AgentEventSink = (event: AgentEvent) => void;

export function makeEvent(
  event: string,
  status: AgentEvent['status'],
  fields: { message?: string | null; duration_ms?: number | null; error_type?: string | null; labels?: EventLabels } = {},
): AgentEvent {
  return {
    event,
    status,
    message: fields.message ?? null,
    duration_ms: fields.duration_ms === undefined || fields.duration_ms === null ? null : Math.round(fields.duration_ms * 10) / 10,
    error_type: fields.error_type ?? null,
    labels: fields.labels ?? {},
  };
}

/** A sink that never lets a faulty listener break the agent. */
export function safeSink(sink: AgentEventSink | undefined): AgentEventSink {
  return (event) => {
    try {
      sink?.(event);
    } catch {
      // Recording is best effort; the agent's work matters more.
    }
  };
}

/**
 * A timed step: `started`, then `ok` with duration_ms and the labels `okLabels` derives from the
 * result, or `error` with the error's name and message.
 */
export async function timed<T>(
  sink: AgentEventSink,
  event: string,
  labels: EventLabels,
  fn: () => Promise<T>,
  okLabels?: (result: T) => EventLabels,
): Promise<T> {
  sink(makeEvent(event, 'started', { labels }));
  const start = performance.now();
  try {
    const result = await fn();
    sink(makeEvent(event, 'ok', { duration_ms: performance.now() - start, labels: { ...labels, ...okLabels?.(result) } }));
    return result;
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    sink(
      makeEvent(event, 'error', {
        duration_ms: performance.now() - start,
        // AgentError carries a stable code; others are known by their class name.
        error_type: error instanceof AgentError ? error.code : error.name,
        message: error.message.slice(0, 2000),
        labels,
      }),
    );
    throw err;
  }
}
