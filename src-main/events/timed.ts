import type { EventLabels, EventStatus } from '../../shared';

/**
 * The one shape of an event before it is stored: what the engine, the workflows, the marketplace
 * provisioning, the agents and the llmserver warm-up report. The store adds job_id, seq and
 * recorded_at; absent fields are stored as null (labels as {}).
 */
export type EventInput = {
  event: string;
  status: EventStatus;
  message?: string | null;
  duration_ms?: number | null;
  error_type?: string | null;
  labels?: EventLabels;
};

/** Receives events. The engine's sink persists (async); a provider's sink may be synchronous. */
export type EventSink = (event: EventInput) => void | Promise<void>;

/** The one rounding of every duration_ms (events, phases, result metadata): 0.1 ms. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Milliseconds since `startedAt` (a performance.now() reading), rounded like every duration_ms. */
export function elapsedMs(startedAt: number): number {
  return roundMs(performance.now() - startedAt);
}

/** A stable error_type: the error's snake_case `code` (providers and JobFailure carry one), else its class name. */
export function errorTypeOf(err: unknown): string {
  const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
  if (typeof code === 'string' && /^[a-z][a-z0-9_]{1,63}$/.test(code)) return code;
  return err instanceof Error ? err.name : 'error';
}

export function errorMessageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

/** Error messages in events are bounded: a driver's stderr can be long. */
const MAX_ERROR_MESSAGE = 2000;

export type TimedOptions<T> = {
  labels?: EventLabels;
  /**
   * A message and extra labels for the closing event, derived from the step's value. An
   * `error_type` makes it an `error` event: a step that reports its failure as a value (a release
   * that could not be confirmed) is still one failed step.
   */
  done?: (value: T) => { message?: string | null; labels?: EventLabels; error_type?: string | null };
};

/**
 * Runs `fn` as a timed step: `started`, then `ok` (with duration_ms and what `done` adds) or
 * `error` (with duration_ms, the message and errorTypeOf), and rethrows the step's error. An
 * async sink is awaited, so the events are recorded in order; with a synchronous sink `fn` starts
 * in the same tick as the call (a cancel right after the call still reaches it).
 */
export async function timed<T>(sink: EventSink, event: string, fn: () => Promise<T>, options: TimedOptions<T> = {}): Promise<T> {
  const labels = options.labels ?? {};
  const started = sink({ event, status: 'started', labels });
  if (started instanceof Promise) await started;
  const startedAt = performance.now();
  let value: T;
  try {
    value = await fn();
  } catch (err) {
    const failed = sink({
      event,
      status: 'error',
      duration_ms: elapsedMs(startedAt),
      message: errorMessageOf(err).slice(0, MAX_ERROR_MESSAGE),
      error_type: errorTypeOf(err),
      labels,
    });
    if (failed instanceof Promise) await failed;
    throw err;
  }
  const durationMs = elapsedMs(startedAt);
  const extra = options.done?.(value) ?? {};
  const ok = sink({
    event,
    status: extra.error_type ? 'error' : 'ok',
    duration_ms: durationMs,
    message: extra.message ?? null,
    ...(extra.error_type ? { error_type: extra.error_type } : {}),
    labels: { ...labels, ...extra.labels },
  });
  if (ok instanceof Promise) await ok;
  return value;
}

