import { randomBytes } from 'node:crypto';
import type { MarketplaceInstance, MarketplaceOffer, MarketplaceTemplate } from './vast-wire';
import type { CatalogEntry } from '../../shared/models';
import type { OfferSummary } from '../../shared/requests';
import { MarketplaceError, MarketplaceProvisioningError, isNotThere } from './errors';
import { MARKETPLACE_EVENTS, emit, errorMessage, timedStep, type MarketplaceEventSink } from './events';
import { isGone } from './instance-status';
import { describeCriteria, selectOffers, toOfferSummary, type OfferCriteria } from './offer-selection';
import { releaseInstance } from './release';
import { OLLAMA_CONTAINER_PORT, templateAccess, type TemplateAccess } from './template';
import type { VastApi } from './vast-client';

/**
 * Renting the cheapest fitting offer for a job: template lookup, offer search, rent with fallback
 * to the next offer. The instance is the caller's to release, except when a cancel interrupts
 * the rent call itself (then it is found by label and released here).
 */

export const LABEL_PREFIX = 'benchdesk:';
export const jobLabel = (jobId: string): string => `${LABEL_PREFIX}${jobId}`;

/** The request fields that drive renting; the llm-instance and benchmark requests both fit. */
export type RentRequest = {
  template_hash?: string | undefined;
  min_dph: number;
  max_dph?: number | undefined;
  reliability: number;
};

export type RentCheapestFitOptions = {
  client: VastApi;
  request: RentRequest;
  /** The model's catalog entry: sizes the GPU (vram_mb) and the disk (required_disk_gb). */
  model: CatalogEntry;
  jobId: string;
  signal?: AbortSignal;
  onEvent?: MarketplaceEventSink;
  /** Rent attempts across offers when they are taken under us (default 4). */
  maxRentAttempts?: number;
  /** Offers fetched per search (default 20). */
  searchLimit?: number;
  /** Sent as OLLAMA_MODEL (default model.name), e.g. the user's spelling "qwen3". */
  ollamaModel?: string;
  /** The proxy token; random by default. */
  authToken?: string;
  /** More env for the container; ours (OLLAMA_MODEL, OPEN_BUTTON_TOKEN) win on conflict. */
  extraEnv?: Record<string, string>;
  /**
   * The pre-flight estimate: each offer is priced for `durationSeconds` before it is rented (labels
   * of its `marketplace.instance.create` event), and one whose estimate exceeds `maxCostUsd` is
   * not rented (`budget_exceeded`). Default: 3600 s, no limit.
   */
  budget?: { maxCostUsd: number | null; durationSeconds: number };
};

export type RentedInstance = {
  instanceId: number;
  label: string;
  offer: OfferSummary;
  dphTotal: number;
  diskGb: number;
  /** RFC 3339, when the rent call returned. */
  rentedAt: string;
  template: { id: number; hash_id: string; name: string | null; image: string | null };
  /** How the Ollama port is reached: proxy auth required? TLS? */
  access: TemplateAccess;
  /** Secret: the OPEN_BUTTON_TOKEN we set. Do not log it or put it in job results. */
  authToken: string;
};

function newAuthToken(): string {
  return randomBytes(24).toString('base64url');
}

function criteriaOf(request: RentRequest, model: CatalogEntry): OfferCriteria {
  return { minDph: request.min_dph, maxDph: request.max_dph ?? null, minReliability: request.reliability, minVramMb: model.vram_mb };
}

async function lookupTemplate(opts: RentCheapestFitOptions, hash: string): Promise<MarketplaceTemplate> {
  return timedStep(
    opts.onEvent,
    MARKETPLACE_EVENTS.templateLookup,
    { template_hash: hash },
    async () => {
      const template = await opts.client.getTemplateByHash(hash, { signal: opts.signal });
      if (!template) {
        throw new MarketplaceProvisioningError(
          `Template "${hash}" was not found on Vast.ai (neither your templates nor public ones). Check template_hash: editing a template changes its hash.`,
          'template_not_found',
        );
      }
      return template;
    },
    (t) => ({ labels: { template_id: t.id, template_name: t.name ?? null, image: t.image ?? null } }),
  );
}

async function searchFitting(opts: RentCheapestFitOptions, criteria: OfferCriteria, exclude: ReadonlySet<number>): Promise<MarketplaceOffer[]> {
  const labels = {
    min_dph: criteria.minDph,
    max_dph: criteria.maxDph ?? null,
    reliability: criteria.minReliability,
    vram_mb: criteria.minVramMb ?? null,
    model: opts.model.name,
  };
  return timedStep(
    opts.onEvent,
    MARKETPLACE_EVENTS.offerSearch,
    labels,
    async () => {
      const offers = await opts.client.searchOffers(
        {
          minDph: criteria.minDph,
          maxDph: criteria.maxDph ?? undefined,
          minReliability: criteria.minReliability,
          // The total across GPUs: Ollama splits a model over several cards.
          minGpuTotalRamMb: opts.model.vram_mb,
          allocatedStorageGb: opts.model.required_disk_gb,
          limit: opts.searchLimit ?? 20,
        },
        { signal: opts.signal },
      );
      // The server filtered already; the same rules again locally keep us from renting an unfit machine.
      return selectOffers(offers, criteria).filter((o) => !exclude.has(o.id));
    },
    (fit) => ({
      message: `${fit.length} offer(s) fit`,
      labels: { count: fit.length, cheapest_dph: fit[0]?.dph_total ?? null, cheapest_id: fit[0]?.id ?? null },
    }),
  );
}

/** Instances carrying this job's label: to recover an instance whose id we never learnt. */
export async function findJobInstances(client: VastApi, jobId: string, signal?: AbortSignal): Promise<MarketplaceInstance[]> {
  const label = jobLabel(jobId);
  const all = await client.listInstances({ signal });
  return all.filter((i) => i.label === label && !isGone(i));
}

/**
 * Resolves the template, searches offers that fit the price range, reliability and the model's
 * VRAM, and rents the cheapest. An offer taken between search and rent (404/410) moves on to the
 * next one (re-searching once the list runs out), up to `maxRentAttempts`. Throws
 * MarketplaceProvisioningError (`invalid_request`, `template_not_found`, `no_offers`,
 * `offers_exhausted`) or the client's MarketplaceError. When the rent call's outcome is unknown
 * (timeout, 5xx, unreadable answer), the instance is looked up by label before giving up.
 */
export async function rentCheapestFit(opts: RentCheapestFitOptions): Promise<RentedInstance> {
  const { request, model } = opts;
  if (!request.template_hash) throw new MarketplaceProvisioningError('template_hash is required to rent a marketplace instance', 'invalid_request');
  if (!request.max_dph || request.max_dph <= 0) {
    throw new MarketplaceProvisioningError('max_dph (the spend ceiling in $/hour) is required to rent a marketplace instance', 'invalid_request');
  }
  const template = await lookupTemplate(opts, request.template_hash);
  const access = templateAccess(template);
  if (access.notes.length > 0) {
    emit(opts.onEvent, { event: MARKETPLACE_EVENTS.templateLookup, status: 'info', message: access.notes.join('; '), labels: { auth_required: access.authRequired, https: access.https } });
  }

  const criteria = criteriaOf(request, model);
  const authToken = opts.authToken ?? newAuthToken();
  const label = jobLabel(opts.jobId);
  const env: Record<string, string> = { ...opts.extraEnv, OLLAMA_MODEL: opts.ollamaModel ?? model.name, OPEN_BUTTON_TOKEN: authToken };
  // Vast's env dict takes port mappings as "-p H:C" keys; make sure Ollama's port is published.
  if (!access.exposesPort) env[`-p ${OLLAMA_CONTAINER_PORT}:${OLLAMA_CONTAINER_PORT}`] = '1';

  const maxAttempts = Math.max(1, opts.maxRentAttempts ?? 4);
  const tried = new Set<number>();
  let candidates = await searchFitting(opts, criteria, tried);
  if (candidates.length === 0) {
    throw new MarketplaceProvisioningError(
      `No offer fits (${describeCriteria(criteria)}, for ${model.name}). Raise max_dph, lower reliability, or pick a smaller model.`,
      'no_offers',
    );
  }
  let researched = false;
  let lastTaken = '';
  while (tried.size < maxAttempts) {
    let offer = candidates.shift();
    if (!offer) {
      if (researched) break;
      researched = true;
      candidates = await searchFitting(opts, criteria, tried);
      offer = candidates.shift();
      if (!offer) break;
    }
    tried.add(offer.id);
    const summary = toOfferSummary(offer);
    const estimate = preflightEstimate(opts, offer);
    const labels = { offer_id: offer.id, gpu_name: offer.gpu_name, num_gpus: offer.num_gpus, dph_total: offer.dph_total, attempt: tried.size, ...estimate.labels };
    // Offers come cheapest first, so when this one is over the limit every other fitting one is too.
    if (estimate.over) {
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: estimate.message, labels });
      throw new MarketplaceProvisioningError(estimate.message, 'budget_exceeded');
    }
    try {
      const instanceId = await timedStep(
        opts.onEvent,
        MARKETPLACE_EVENTS.instanceCreate,
        labels,
        () => rentOrRecover(opts, offer, { templateHashId: template.hash_id, diskGb: model.required_disk_gb, label, env }),
        (id) => ({ message: `rented offer ${offer.id} as instance ${id}`, labels: { instance_id: id } }),
      );
      return {
        instanceId,
        label,
        offer: summary,
        dphTotal: offer.dph_total,
        diskGb: model.required_disk_gb,
        rentedAt: new Date().toISOString(),
        template: { id: template.id, hash_id: template.hash_id, name: template.name ?? null, image: template.image ?? null },
        access,
        authToken,
      };
    } catch (err) {
      if (!isNotThere(err)) throw err;
      lastTaken = errorMessage(err);
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `offer ${offer.id} was taken before we could rent it; trying the next one`, labels });
    }
  }
  throw new MarketplaceProvisioningError(
    `Every fitting offer we tried (${tried.size}) was taken before it could be rented (last: ${lastTaken}). Try again, or widen the price range.`,
    'offers_exhausted',
  );
}

const DEFAULT_ESTIMATE_SECONDS = 3600;

function preflightEstimate(opts: RentCheapestFitOptions, offer: MarketplaceOffer): { labels: Record<string, number | null>; over: boolean; message: string } {
  const seconds = opts.budget?.durationSeconds ?? DEFAULT_ESTIMATE_SECONDS;
  const max = opts.budget?.maxCostUsd ?? null;
  const estimated = Math.round(offer.dph_total * (seconds / 3600) * 10_000) / 10_000;
  const over = max !== null && estimated > max;
  return {
    labels: { estimated_cost_usd: estimated, estimated_duration_seconds: seconds, max_cost_usd: max },
    over,
    message: over
      ? `the pre-flight estimate $${estimated.toFixed(4)} (offer ${offer.id} at $${offer.dph_total}/h for ${seconds} s, estimated_duration_seconds) exceeds max_cost_usd $${max}; nothing was rented`
      : '',
  };
}

async function rentOrRecover(
  opts: RentCheapestFitOptions,
  offer: MarketplaceOffer,
  params: { templateHashId: string; diskGb: number; label: string; env: Record<string, string> },
): Promise<number> {
  try {
    return (await opts.client.rentOffer(offer.id, params, { signal: opts.signal })).instanceId;
  } catch (err) {
    if (opts.signal?.aborted) {
      await releaseAfterAbortedRent(opts);
      throw err;
    }
    const ambiguous = err instanceof MarketplaceError && ['timeout', 'network', 'bad_response', 'upstream_unavailable'].includes(err.code);
    if (!ambiguous) throw err;
    // The instance may exist although we never saw its id: find it by label so it is not leaked.
    const found = await findJobInstances(opts.client, opts.jobId, opts.signal).catch(() => []);
    const mine = found.find((i) => i.label === params.label);
    if (mine) {
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `rent answer lost (${errorMessage(err)}); found instance ${mine.id} by label`, labels: { instance_id: mine.id } });
      return mine.id;
    }
    throw err;
  }
}

/** Bound on the clean-up after a cancel that interrupted a rent call. */
const ABORTED_RENT_CLEANUP_MS = 60_000;

/**
 * A cancel during the rent call may land after Vast created the instance: look for it by label
 * (with a fresh time bound, the job's signal being aborted) and release it, so nothing is leaked.
 */
async function releaseAfterAbortedRent(opts: RentCheapestFitOptions): Promise<void> {
  const signal = AbortSignal.timeout(ABORTED_RENT_CLEANUP_MS);
  const found = await findJobInstances(opts.client, opts.jobId, signal).catch(() => []);
  for (const instance of found) {
    emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `cancelled while renting; releasing instance ${instance.id}`, labels: { instance_id: instance.id } });
    await releaseInstance({ client: opts.client, instanceId: instance.id, signal, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
  }
}
