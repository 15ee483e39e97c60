import { errorMessage } from '../marketplace/events';
import { findLabelledInstances } from '../marketplace/rent';
import { backoffDelay, sleep } from '../marketplace/sleep';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import type { Lease } from './lease';
import type { LeaseDeps } from './lease-deps';

/**
 * Finding a lost rent (design §15): after a create whose answer was lost (a timeout, a 5xx, an
 * unreadable answer, a cancel or a crash while it ran), the machine may appear on the account a
 * moment later and bill. Its label is looked up with backoff until `hunt_until` (at least 5 minutes
 * after the create) and whatever carries it is released, whatever the auto-release setting: it is
 * this install's own label. A lookup that fails is reported and tried again, never taken as "none";
 * the hunt ends only after a lookup that answered once the time is up.
 */

export const DEFAULT_HUNT_MS = 5 * 60_000;
const DEFAULT_HUNT_DELAY_MS = 10_000;
const MAX_HUNT_DELAY_MS = 60_000;

export type HuntFound = (lease: Lease, instance: MarketplaceInstance) => Promise<void>;

/** One hunt, until its lease's hunt_until has passed and a lookup answered; `signal` ends it early (shutdown). */
export async function huntLostRent(deps: LeaseDeps, lease: Lease, found: HuntFound, signal: AbortSignal): Promise<void> {
  const delay = { initialMs: deps.tuning?.huntDelayMs ?? DEFAULT_HUNT_DELAY_MS, factor: 2, maxMs: Math.max(deps.tuning?.huntDelayMs ?? 0, MAX_HUNT_DELAY_MS) };
  const label = lease.record.label;
  for (let attempt = 1; !signal.aborted; attempt++) {
    const client = lease.keyed?.client ?? deps.access.current()?.client ?? null;
    let answered = false;
    if (client) {
      try {
        const instances = await findLabelledInstances(client, [label], signal);
        answered = true;
        for (const instance of instances) {
          if (instance.id === lease.record.instance_id && lease.record.state !== 'renting') continue;
          deps.notify?.(lease.record, { event: 'marketplace.lost_rent', status: 'info', message: `found instance ${instance.id} by its label ${label} after a create whose answer was lost: releasing it`, labels: { instance_id: instance.id } });
          await found(lease, instance);
        }
      } catch (err) {
        if (signal.aborted) return;
        // Never taken as "no machine": reported, and looked up again.
        deps.log.warn('could not look for a lost rent by its label; trying again', { lease_id: lease.id, label, error: errorMessage(err) });
        deps.notify?.(lease.record, { event: 'marketplace.lost_rent', status: 'info', message: `could not look for the label ${label} (${errorMessage(err)}); trying again`, labels: { attempt } });
      }
    } else {
      deps.log.warn('no marketplace key to look for a lost rent with; trying again', { lease_id: lease.id, label });
    }
    const until = lease.record.hunt_until ? Date.parse(lease.record.hunt_until) : 0;
    if (answered && Date.now() >= until) return;
    await sleep(backoffDelay(attempt, delay), signal).catch(() => undefined);
  }
}
