import type { EventLabels } from '../../shared/jobs';

/**
 * Events the provisioning functions report. The engine turns each into a job event (design §3):
 * a timed step emits `started`, then `ok` or `error` with `duration_ms`; `info` marks progress
 * inside a step (an offer taken, a status change).
 */
export const MARKETPLACE_EVENTS = {
  templateLookup: 'marketplace.template_lookup',
  offerSearch: 'marketplace.offer_search',
  instanceCreate: 'marketplace.instance.create',
  waitRunning: 'marketplace.instance.wait_running',
  instanceDestroy: 'marketplace.instance.destroy',
} as const;
export type MarketplaceEventName = (typeof MARKETPLACE_EVENTS)[keyof typeof MARKETPLACE_EVENTS];

export type MarketplaceEvent = {
  event: MarketplaceEventName;
  status: 'started' | 'ok' | 'error' | 'info';
  message?: string;
  labels?: EventLabels;
  /** On `ok`/`error` of a timed step. */
  duration_ms?: number;
  /** On `error`: the MarketplaceError code (or the error's name). */
  error_type?: string;
};

/** Must not throw; a throwing sink is ignored so reporting can never break provisioning. */
export type MarketplaceEventSink = (event: MarketplaceEvent) => void;

export function emit(sink: MarketplaceEventSink | undefined, event: MarketplaceEvent): void {
  if (!sink) return;
  try {
    sink(event);
  } catch {
    // Reporting is best effort by contract.
  }
}

export function errorType(err: unknown): string {
  if (err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.name : 'error';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `fn` as a timed step: `started`, then `ok` (with the labels `done` derives) or `error`. */
export async function timedStep<T>(
  sink: MarketplaceEventSink | undefined,
  event: MarketplaceEventName,
  labels: EventLabels,
  fn: () => Promise<T>,
  done?: (result: T) => { message?: string; labels?: EventLabels },
): Promise<T> {
  const started = performance.now();
  emit(sink, { event, status: 'started', labels });
  try {
    const result = await fn();
    const extra = done?.(result) ?? {};
    emit(sink, {
      event,
      status: 'ok',
      labels: { ...labels, ...extra.labels },
      duration_ms: Math.round(performance.now() - started),
      ...(extra.message ? { message: extra.message } : {}),
    });
    return result;
  } catch (err) {
    emit(sink, {
      event,
      status: 'error',
      labels,
      message: errorMessage(err),
      duration_ms: Math.round(performance.now() - started),
      error_type: errorType(err),
    });
    throw err;
  }
}
