import type { JobRecord, SweepRequest } from '../../shared';
import type { CatalogEntry } from '../../shared/models';
import { timed, type EventInput } from '../events/timed';
import type { Lease } from '../lease/lease';
import type { Leases } from '../lease/leases';
import { resolveCatalogModel, type Catalog } from '../marketplace/catalog';
import type { MarketplaceAccess } from '../marketplace/access';
import { isGone } from '../marketplace/instance-status';
import { templateFilters } from '../marketplace/offer-query';
import { findLabelledInstances, labelsOfJob } from '../marketplace/provisioning';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceOffer, MarketplaceTemplate } from '../marketplace/vast-wire';
import type { RentedServer } from '../marketplace/rented-server';
import { findTemplateByName } from '../marketplace/template-lookup';
import { VLLM_TEMPLATE_NAME } from '../../shared/request-fields';
import { OpenAiClient } from '../llm/openai-client';
import type { JobContext, Logger } from '../engine/types';
import { agentBackendUrl, llmClient } from '../engine/workflows/backend';
import { rentedServerOf } from '../engine/workflows/marketplace-instance';
import { downloadOf, ensureModel, type PullTotals } from '../engine/workflows/ensure-model';
import { waitForOllama } from '../engine/workflows/llm-ready';
import type { MachineEvent, Prepared, ReleaseOutcome, RentedMachine, SweepMachines } from './ports';
import { plannedDiskGb, sameGpu } from './planner';

/**
 * The sweep's machines on the marketplace, each one a lease (src-main/lease): the same search
 * (the hosts that can run the template), rent with fallback, wait, key held for crash recovery,
 * destroy-and-verify retried until confirmed, and costs in the ledger, downloads included. The
 * machine's label carries its machine id (`benchdesk:<install>:<sweep>-g<n>-a<attempt>`), which is
 * how the machines list and a recovery after a crash find it.
 */

export type MarketplaceMachinesDeps = {
  leases: Leases;
  access: MarketplaceAccess;
  catalog(): Catalog;
  log: Logger;
  /** Bounds of the wait for a machine's Ollama (tests make them small). */
  ready?: { timeoutMs?: number; pollIntervalMs?: number };
};

/** The job-shaped context a model's pull reports through, for a machine that belongs to a sweep: events go to its feed. */
function machineContext(signal: AbortSignal, log: Logger, onEvent: (e: MachineEvent) => void): JobContext {
  const emit = (input: EventInput): void => onEvent({ event: input.event, status: input.status, message: input.message ?? null, duration_ms: input.duration_ms ?? null, labels: input.labels ?? {} });
  const ctx = {
    job: { job_id: 'sweep-machine' } as Pick<JobRecord, 'job_id'>,
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
    setResources: async () => undefined,
  };
  return ctx as unknown as JobContext;
}

/** The sweep's template: its hash, or for vLLM machines without one the template found by name. */
function sweepTemplate(client: VastApi, request: SweepRequest, signal: AbortSignal): Promise<MarketplaceTemplate | null> {
  if (request.template_hash) return client.getTemplateByHash(request.template_hash, { signal });
  return rentedServerOf(request) === 'vllm' ? findTemplateByName({ client, signal }, VLLM_TEMPLATE_NAME) : Promise.resolve(null);
}

/** The planning search: every GPU of the sweep, the hosts that can run the template, priced at the disk the sweep rents. */
async function search(client: VastApi, request: SweepRequest, diskGb: number, signal: AbortSignal): Promise<MarketplaceOffer[]> {
  const template = await sweepTemplate(client, request, signal);
  return client.searchOffers(
    {
      minDph: request.min_dph,
      maxDph: request.max_dph ?? request.max_total_cost_usd,
      minReliability: request.reliability,
      allocatedStorageGb: diskGb,
      minDiskGb: diskGb,
      ...(template ? { template: { id: template.id, extraFilters: templateFilters(template.extra_filters) } } : {}),
      extraFilters: { gpu_name: { in: [...request.gpus] } },
      limit: 1000,
    },
    { signal, maxAgeMs: 60_000 },
  );
}

export function createMarketplaceMachines(deps: MarketplaceMachinesDeps): SweepMachines {
  /** Per machine id: its lease, how to reach its server, and what that serves. */
  const held = new Map<string, { lease: Lease; backendUrl: string; headers: Record<string, string>; inetDownCost: number | null; sizing: CatalogEntry; server: RentedServer }>();
  const searches = new Map<string, { at: number; offers: Promise<MarketplaceOffer[]> }>();
  const catalogEntry = (model: string) => resolveCatalogModel(model, deps.catalog()) ?? undefined;

  return {
    ready: () => deps.access.current() !== null,
    catalogEntry,

    async offers(gpu: string, request: SweepRequest) {
      const keyed = deps.access.current();
      if (!keyed) throw new Error('no marketplace key is configured (set VAST_API_KEY)');
      // Priced at the disk a machine holding all the sweep's models rents (dph_total includes storage).
      const diskGb = plannedDiskGb(request.models.map(catalogEntry).filter((e): e is CatalogEntry => e !== undefined));
      // One search for every GPU of the sweep, shared by its machines (they plan at the same
      // moment) and cached a minute: the marketplace allows about ten searches a minute.
      const key = JSON.stringify([request.gpus, request.min_dph, request.max_dph ?? request.max_total_cost_usd, request.reliability, request.template_hash, diskGb]);
      let shared = searches.get(key);
      if (!shared || Date.now() - shared.at > 60_000) {
        // Not the sweep's signal: another sweep may share this search; it is bounded on its own.
        shared = { at: Date.now(), offers: search(keyed.client, request, diskGb, AbortSignal.timeout(60_000)) };
        searches.set(key, shared);
        shared.offers.catch(() => searches.delete(key));
      }
      return (await shared.offers).filter((o) => sameGpu(o.gpu_name, gpu));
    },

    async rent(spec, hooks, signal): Promise<RentedMachine> {
      const lease = await deps.leases.open({ owner: { kind: 'sweep', sweep_id: spec.sweepId, machine_id: spec.machineId, gpu: spec.gpu }, tenantId: spec.tenantId, releaseWhenInterrupted: true });
      const { request } = spec;
      const server = rentedServerOf(request);
      // A vLLM machine serves the sweep's one model (MODEL_NAME, as the user spelt it), loaded at start.
      const served = server === 'vllm' ? (request.models[0] ?? spec.sizing.name) : null;
      const onEvent = (e: EventInput): void => hooks.onEvent({ event: e.event, status: e.status, message: e.message ?? null, duration_ms: e.duration_ms ?? null, labels: e.labels ?? {} });
      const machine = await lease.provision({
        request: { template_hash: request.template_hash, min_dph: request.min_dph, max_dph: request.max_dph ?? request.max_total_cost_usd, reliability: request.reliability, gpu_name: spec.gpu },
        sizing: spec.sizing,
        server,
        ...(served ? { ollamaModel: served } : {}),
        // The pre-rent check: a machine whose first minute (and downloads) would exceed the whole budget is not rented.
        budget: { maxCostUsd: request.max_total_cost_usd, durationSeconds: 60 },
        signal,
        onEvent,
        onRented: (r) => hooks.onRented({ instanceId: r.instanceId, dphTotal: r.dphTotal, rentedAt: r.rentedAt }),
        ready: (m, s) => timed(onEvent, 'llmserver.ready', () => machineReady(m, served, s, deps.ready)),
      });
      held.set(spec.machineId, { lease, backendUrl: machine.backendUrl, headers: machine.headers, inetDownCost: machine.inetDownCost, sizing: spec.sizing, server: machine.server });
      return {
        machineId: spec.machineId,
        instanceId: machine.instanceId,
        dphTotal: machine.dphTotal,
        rentedAt: machine.rentedAt,
        offerId: machine.offer.id,
        numGpus: machine.offer.num_gpus,
        gpuRamMb: machine.offer.gpu_ram,
        backendUrl: agentBackendUrl({ backendUrl: machine.backendUrl, headers: machine.headers }),
      };
    },

    async prepare(machine, model, onEvent, signal): Promise<Prepared> {
      const own = held.get(machine.machineId);
      const target = own ? { backendUrl: own.backendUrl, headers: own.headers } : { backendUrl: machine.backendUrl };
      if (own?.server === 'vllm') {
        // No pull: vLLM downloaded the weights at start; billed at the catalog's size and the host's $/GB.
        const download = downloadOf(model, [], 0, catalogEntry(model) ?? own.sizing, own.inetDownCost);
        await own.lease.addDownload(download);
        onEvent({ event: 'cost.download', status: 'info', message: `${model}: ${download.gb} GB downloaded by vLLM at start (the catalog's size)`, labels: { model, download_gb: download.gb, download_usd: download.usd, source: download.source } });
        return { model, downloadGb: download.gb, downloadUsd: download.usd };
      }
      let pulled: PullTotals | null = null;
      const models = await ensureModel(machineContext(signal, deps.log, onEvent), llmClient(target), model, { onPulled: (totals) => (pulled = totals) });
      if (!own) return { model, downloadGb: 0, downloadUsd: null };
      const download = downloadOf(model, models, (pulled as PullTotals | null)?.bytes ?? 0, catalogEntry(model) ?? own.sizing, own.inetDownCost);
      await own.lease.addDownload(download);
      return { model, downloadGb: download.gb, downloadUsd: download.usd };
    },

    async release(machineId, instanceId, onEvent): Promise<ReleaseOutcome> {
      held.delete(machineId);
      const sink = (e: { event: string; status: MachineEvent['status']; message?: string | null; labels?: MachineEvent['labels'] }) => onEvent({ event: e.event, status: e.status, message: e.message ?? null, labels: e.labels ?? {} });
      const lease = (await deps.leases.get(machineId)) ?? (await adoptBeforeLedger(deps, machineId, instanceId));
      if (!lease) return { released: true, verified: true, message: 'nothing was rented', costUsd: 0 };
      const outcome = await lease.release('sweep', sink);
      return { released: outcome.released, verified: outcome.verified, message: outcome.message, costUsd: outcome.cost.cost_usd };
    },

    cost: (machineId) => deps.leases.ledger.cost(machineId)?.cost_usd ?? null,
  };
}

/** The machine's server answers: Ollama's version, or (servedModel given) vLLM's /v1/models listing the model. */
async function machineReady(m: { backendUrl: string; headers: Record<string, string> }, servedModel: string | null, signal: AbortSignal, bounds: MarketplaceMachinesDeps['ready']): Promise<void> {
  if (servedModel === null) return waitForOllama({ backendUrl: m.backendUrl, headers: m.headers }, { signal, ...bounds });
  const client = new OpenAiClient({ baseUrl: m.backendUrl, headers: m.headers });
  await client.waitUntilServing(servedModel, { signal, timeoutMs: bounds?.timeoutMs ?? 20 * 60_000, ...(bounds?.pollIntervalMs !== undefined ? { pollIntervalMs: bounds.pollIntervalMs } : {}) });
}

/**
 * A sweep machine recorded by an earlier version, with no lease: found by its id (or its label),
 * and taken into the ledger to be released like any other. null when nothing is there.
 */
async function adoptBeforeLedger(deps: MarketplaceMachinesDeps, machineId: string, instanceId: number | undefined): Promise<Lease | null> {
  const keyed = deps.access.current();
  if (!keyed) return null;
  const signal = AbortSignal.timeout(60_000);
  const found = instanceId !== undefined ? [await keyed.client.showInstance(instanceId, { signal })] : await findLabelledInstances(keyed.client, labelsOfJob(deps.leases.deps.installId, machineId), signal);
  const instance = found.find((i) => i !== null && !isGone(i));
  if (!instance) return null;
  const sweepId = /^(sw-[a-z0-9]+)-g\d+-a\d+$/.exec(machineId)?.[1] ?? machineId;
  return deps.leases.adopt(instance, { owner: { kind: 'sweep', sweep_id: sweepId, machine_id: machineId, gpu: instance.gpu_name ?? '' }, tenantId: 'default', keyed });
}
