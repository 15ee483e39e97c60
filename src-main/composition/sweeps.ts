import type { EventBus } from '../engine/event-bus';
import type { JobEngine } from '../engine/engine';
import type { Logger } from '../engine/types';
import type { MarketplaceMachinesDeps } from '../sweeps/marketplace-machines';
import type { BenchdeskService } from '../app/service-types';
import type { JobStore } from '../store/types';
import { createEngineJobRunner } from '../sweeps/engine-runner';
import { createMarketplaceMachines } from '../sweeps/marketplace-machines';
import type { SweepJobRunner, SweepMachines } from '../sweeps/ports';
import { SweepEngine, type SweepEngineOptions } from '../sweeps/sweep-engine';
import { SweepStore } from '../sweeps/sweep-store';

/** Test seams of the sweep engine: a faster cost cadence, a clock, replaced jobs or machines. */
export type SweepTuning = {
  costIntervalMs?: number;
  now?: () => number;
  runner?: SweepJobRunner;
  machines?: SweepMachines;
};

/**
 * The sweep engine wired to the app: its records in the data dir, its machines as leases (their
 * costs the ledger's), its jobs through the job engine, its events on the tenant feed (each
 * with a global seq from the job store, so a feed resumes across both).
 */
export function createSweeps(parts: {
  dataDir: string;
  log: Logger;
  store: JobStore;
  engine: JobEngine;
  bus: EventBus;
  service: BenchdeskService;
  marketplace: Omit<MarketplaceMachinesDeps, 'log'>;
  now?: (() => number) | undefined;
  tagsOf?: SweepEngineOptions['tagsOf'];
  checkRequest?: SweepEngineOptions['checkRequest'];
  tuning?: SweepTuning | undefined;
}): SweepEngine {
  const tuning = parts.tuning ?? {};
  const now = tuning.now ?? parts.now;
  return new SweepEngine({
    store: new SweepStore(parts.dataDir, parts.log),
    runner:
      tuning.runner ??
      createEngineJobRunner({
        service: parts.service,
        bus: parts.bus,
        getJob: (jobId) => parts.store.getJob(jobId),
        hasHandler: (kind) => parts.engine.handlerFor(kind) !== undefined,
        jobOfKey: async (tenantId, kind, key) => (await parts.store.getIdempotency(tenantId, kind, key))?.job_id,
      }),
    machines: tuning.machines ?? createMarketplaceMachines({ ...parts.marketplace, log: parts.log }),
    log: parts.log,
    publish(tenantId, sweepId, e) {
      parts.bus.publish(tenantId, {
        seq: parts.store.reserveSeq(),
        job_id: sweepId,
        event: e.event,
        status: e.status,
        message: e.message,
        duration_ms: null,
        error_type: null,
        labels: { ...e.labels, sweep_id: sweepId },
        recorded_at: new Date().toISOString(),
      });
    },
    ...(now ? { now } : {}),
    ...(tuning.costIntervalMs !== undefined ? { costIntervalMs: tuning.costIntervalMs } : {}),
    ...(parts.tagsOf ? { tagsOf: parts.tagsOf } : {}),
    ...(parts.checkRequest ? { checkRequest: parts.checkRequest } : {}),
  });
}
