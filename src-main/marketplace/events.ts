import type { EventLabels } from '../../shared/jobs';
import { timed, type EventInput } from '../events/timed';

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

/** A marketplace event: the one event-input shape, named from MARKETPLACE_EVENTS. */
export type MarketplaceEvent = EventInput & { event: MarketplaceEventName };

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

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `fn` as a timed step (engine/timed.ts): `started`, then `ok` (with the labels `done` derives) or `error`. */
export function timedStep<T>(
  sink: MarketplaceEventSink | undefined,
  event: MarketplaceEventName,
  labels: EventLabels,
  fn: () => Promise<T>,
  done?: (result: T) => { message?: string; labels?: EventLabels; error_type?: string },
): Promise<T> {
  return timed((e) => emit(sink, { ...e, event }), event, fn, { labels, ...(done ? { done } : {}) });
}
