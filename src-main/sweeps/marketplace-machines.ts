import type { JobRecord, SweepRequest } from '../../shared';
import type { KeyedClient } from '../marketplace/access';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceOffer } from '../marketplace/vast-wire';
import { resolveCatalogModel } from '../marketplace/catalog';
import { findLabelledInstances, labelsOfJob } from '../marketplace/provisioning';
import { timed, type EventInput } from '../events/timed';
import type { JobContext, Logger } from '../engine/types';
import { agentBackendUrl, llmClient, type BackendTarget } from '../engine/workflows/backend';
import { ensureModel } from '../engine/workflows/ensure-model';
import { provisionInstance, releaseJobInstance, type MarketplaceDeps } from '../engine/workflows/marketplace-instance';
import type { MachineEvent, ReleaseOutcome, RentedMachine, SweepMachines } from './ports';
import { sameGpu } from './planner';

/**
 * The sweep's machines on the marketplace, through the same provisioning the benchmark uses
 * (template lookup, offer search with the GPU name, rent with fallback, wait for Ollama, the key
 * held for crash recovery) and the same destroy-and-verify. The machine's label carries its
 * machine id (`benchdesk:<install>:<sweep>-g<n>-a<attempt>`), which is how the machines list and
 * a recovery after a crash find it.
 */

/**
 * The job-shaped context the provisioning steps report through, for a machine that belongs to a
 * sweep rather than a job: events go to the sweep's feed, the rent's id to the sweep record.
 */
function machineContext(
  machineId: string,
  signal: AbortSignal,
  log: Logger,
  onEvent: (e: MachineEvent) => void,
  onResources: (patch: { marketplace_instance_id?: number | null | undefined; dph_total?: number | null | undefined; rented_at?: string | null | undefined }) => Promise<void>,
): JobContext {
  const emit = (input: EventInput): void => onEvent({ event: input.event, status: input.status, message: input.message ?? null, duration_ms: input.duration_ms ?? null, labels: input.labels ?? {} });
  const ctx = {
    // Only the id is read: it names the held key and the label.
    job: { job_id: machineId } as Pick<JobRecord, 'job_id'>,
    request: {},
    signal,
    logger: log,
    step: <T>(event: string, fn: () => Promise<T>, labels?: EventInput['labels']) => timed(emit, event, fn, labels ? { labels } : {}),
    info: async (event: string, message: string, labels?: EventInput['labels']) => emit({ event, status: 'info', message, ...(labels ? { labels } : {}) }),
    emit: async (input: EventInput) => emit(input),
    setProgress: async () => undefined,
    setCost: async () => undefined,
    // The sweep enforces its own spend limit over all its machines.
    stop: () => undefined,
    setResources: onResources,
  };
  return ctx as unknown as JobContext;
}

type Held = { target: BackendTarget; keyed: KeyedClient };

function search(client: VastApi, request: SweepRequest, signal: AbortSignal): Promise<MarketplaceOffer[]> {
  return client.searchOffers(
    {
      minDph: request.min_dph,
      maxDph: request.max_dph ?? request.max_total_cost_usd,
      minReliability: request.reliability,
      extraFilters: { gpu_name: { in: [...request.gpus] } },
      limit: 256,
    },
    { signal, maxAgeMs: 60_000 },
  );
}

export function createMarketplaceMachines(deps: MarketplaceDeps & { log: Logger }): SweepMachines {
  /** Per instance: how to reach its Ollama and the key it was rented with (released with that key). */
  const held = new Map<number, Held>();
  const searches = new Map<string, { at: number; offers: Promise<MarketplaceOffer[]> }>();
  const catalogEntry = (model: string) => resolveCatalogModel(model, deps.catalog()) ?? undefined;

  return {
    ready: () => deps.access.current() !== null,
    catalogEntry,

    async offers(gpu: string, request: SweepRequest) {
      const keyed = deps.access.current();
      if (!keyed) throw new Error('no marketplace key is configured (set VAST_API_KEY)');
      // One search for every GPU of the sweep, shared by its machines (they plan at the same
      // moment) and cached a minute: the marketplace allows about ten searches a minute, and each
      // machine's rent needs one of its own.
      const key = JSON.stringify([request.gpus, request.min_dph, request.max_dph ?? request.max_total_cost_usd, request.reliability]);
      let shared = searches.get(key);
      if (!shared || Date.now() - shared.at > 60_000) {
        // Not the sweep's signal: another sweep may share this search; it is bounded on its own.
        shared = { at: Date.now(), offers: search(keyed.client, request, AbortSignal.timeout(60_000)) };
        searches.set(key, shared);
        shared.offers.catch(() => searches.delete(key));
      }
      const offers = await shared.offers;
      return offers.filter((o) => sameGpu(o.gpu_name, gpu));
    },

    async rent(spec, hooks, signal): Promise<RentedMachine> {
      let recorded = false;
      const ctx = machineContext(spec.machineId, signal, deps.log, hooks.onEvent, async (patch) => {
        if (recorded || patch.marketplace_instance_id == null || patch.dph_total == null || !patch.rented_at) return;
        recorded = true;
        await hooks.onRented({ instanceId: patch.marketplace_instance_id, dphTotal: patch.dph_total, rentedAt: patch.rented_at });
      });
      const { request } = spec;
      const instance = await provisionInstance(
        ctx,
        // The sweep meters its machines itself: no per-machine limit from the settings.
        { ...deps, maxCostDefault: () => null },
        {
          model: spec.sizing.name,
          template_hash: request.template_hash,
          min_dph: request.min_dph,
          max_dph: request.max_dph ?? request.max_total_cost_usd,
          reliability: request.reliability,
          gpu_name: spec.gpu,
          // The pre-rent check: a machine whose first minute (and downloads) would exceed the whole budget is not rented.
          max_cost_usd: request.max_total_cost_usd,
          estimated_duration_seconds: 60,
        },
        true,
        spec.sizing,
      );
      instance.meter.stop();
      held.set(instance.instanceId, { target: instance.target, keyed: instance.keyed });
      return {
        instanceId: instance.instanceId,
        dphTotal: instance.dphTotal,
        rentedAt: instance.rentedAt,
        offerId: instance.offer.id,
        numGpus: instance.offer.num_gpus,
        gpuRamMb: instance.offer.gpu_ram,
        backendUrl: agentBackendUrl(instance.target),
      };
    },

    async prepare(machine, model, onEvent, signal) {
      const target = held.get(machine.instanceId)?.target ?? { backendUrl: machine.backendUrl };
      const ctx = machineContext(`instance-${machine.instanceId}`, signal, deps.log, onEvent, async () => undefined);
      await ensureModel(ctx, llmClient(target), model);
    },

    async release(machineId, instanceId, onEvent): Promise<ReleaseOutcome> {
      const ctx = { job: { job_id: machineId }, emit: async (input: EventInput) => onEvent({ event: input.event, status: input.status, message: input.message ?? null, labels: input.labels ?? {} }), setResources: async () => undefined };
      let ids = instanceId !== undefined ? [instanceId] : [];
      if (ids.length === 0) {
        // The rent's answer was never recorded (a stop during the rent): find the machine by its label.
        const keyed = deps.access.current();
        if (!keyed) return { released: false, verified: false, message: 'no marketplace key is configured to look for the machine' };
        const found = await findLabelledInstances(keyed.client, labelsOfJob(deps.installId, machineId), AbortSignal.timeout(60_000)).catch(() => null);
        if (found === null) return { released: false, verified: false, message: `could not look up the machine labelled ${machineId}` };
        if (found.length === 0) {
          await deps.heldKeys.drop(machineId).catch(() => undefined);
          return { released: true, verified: true, message: 'nothing was rented' };
        }
        ids = found.map((i) => i.id);
      }
      let outcome: ReleaseOutcome = { released: true, verified: true, message: 'released' };
      for (const id of ids) {
        const result = await releaseJobInstance(ctx, deps, id, held.get(id)?.keyed ?? null);
        held.delete(id);
        if (!result.verified) outcome = { released: result.released, verified: false, message: result.message };
        else if (ids.length === 1) outcome = { released: result.released, verified: true, message: result.message };
      }
      return outcome;
    },
  };
}
