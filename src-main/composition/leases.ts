import { isTerminal } from '../../shared';
import type { EventInput } from '../events/timed';
import type { Logger } from '../engine/types';
import { LeaseBook } from '../lease/lease-book';
import type { LeaseTuning } from '../lease/lease-deps';
import type { LeaseRecord } from '../lease/lease-record';
import { Leases } from '../lease/leases';
import { Ledger } from '../lease/ledger';
import type { MarketplaceAccess } from '../marketplace/access';
import type { HeldKeys } from '../marketplace/held-keys';
import type { JobStore } from '../store/types';

/**
 * The lease service wired to the app: its ledger in the data dir (`leases/`), its events to the
 * owner's log (a job's events, a sweep's feed), and a job's record following a release that
 * happened after the job ended (a kept machine released, a retry that finally confirmed).
 */
export function createLeases(parts: {
  dataDir: string;
  log: Logger;
  access: MarketplaceAccess;
  heldKeys: HeldKeys;
  installId: string;
  store: Pick<JobStore, 'getJob' | 'updateJob'>;
  /** A job's event log (the engine's emit); bound once the engine exists. */
  emitJob: () => ((jobId: string, input: EventInput) => Promise<unknown>) | null;
  /** A sweep's feed; bound once the sweeps exist. */
  publishSweep: () => ((tenantId: string, sweepId: string, input: EventInput) => void) | null;
  keptLimitDefault: () => number | null;
  now?: (() => number) | undefined;
  tuning?: LeaseTuning | undefined;
}): Leases {
  const ledger = new Ledger(new LeaseBook(parts.dataDir, parts.log), parts.now ?? Date.now);
  return new Leases({
    ledger,
    access: parts.access,
    heldKeys: parts.heldKeys,
    installId: parts.installId,
    dataDir: parts.dataDir,
    log: parts.log,
    ...(parts.tuning ? { tuning: parts.tuning } : {}),
    keptLimitDefault: parts.keptLimitDefault,
    notify(lease: LeaseRecord, event: EventInput) {
      if (lease.owner.kind === 'job') void parts.emitJob()?.(lease.owner.job_id, event)?.catch(() => undefined);
      else parts.publishSweep()?.(lease.tenant_id, lease.owner.sweep_id, { ...event, labels: { ...event.labels, gpu: lease.owner.gpu } });
    },
    async onReleaseSettled(lease: LeaseRecord) {
      if (lease.owner.kind !== 'job') return;
      const job = await parts.store.getJob(lease.owner.job_id);
      // A running job records its own release (its workflow holds the record); an ended one follows here.
      if (!job || !isTerminal(job.status) || job.resources?.marketplace_instance_id !== lease.instance_id) return;
      const cost = ledger.cost(lease.lease_id);
      await parts.store.updateJob(job.job_id, {
        resources: {
          ...(job.resources ?? {}),
          marketplace_instance_released: lease.state === 'released',
          marketplace_release_error: lease.state === 'released' ? null : lease.release_error,
          ...(cost ? { cost_usd: cost.cost_usd, download_usd: cost.download_usd } : {}),
          ...(lease.released_at ? { released_at: lease.released_at } : {}),
        },
      });
    },
  });
}
