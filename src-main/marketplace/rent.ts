import { randomBytes } from 'node:crypto';
import type { MarketplaceInstance, MarketplaceOffer, MarketplaceTemplate } from './vast-wire';
import { modelEnv, serverName, serverPort, type RentedServer } from './rented-server';
import { resolveTemplate } from './template-lookup';
import type { CatalogEntry } from '../../shared/models';
import type { OfferSummary } from '../../shared/requests';
import { modelDownloadGb } from './catalog';
import { MarketplaceError, MarketplaceProvisioningError, isNotThere } from './errors';
import { templateFilters } from './offer-query';
import { MARKETPLACE_EVENTS, emit, errorMessage, timedStep, type MarketplaceEventSink } from './events';
import { isGone } from './instance-status';
import { jobLabel } from './labels';
import { describeCriteria, downloadUsd, selectOffers, toOfferSummary, type CostBasis, type OfferCriteria } from './offer-selection';
import { backoffDelay, sleep } from './sleep';
import { templateAccess, type TemplateAccess } from './template';
import type { VastApi } from './vast-client';

/**
 * Renting the cheapest fitting offer: template lookup, offer search among the hosts that can run
 * the template, rent with fallback to the next offer (taken, or refused in Vast's words).
 * "Cheapest" is the whole expected cost over every fitting offer: the hours at `dph_total` plus
 * the model's download at the host's `inet_down_cost`. The instance is the caller's (the lease's)
 * to release; a create whose outcome is unknown is reported through `onLostRent`, for the lease to
 * keep looking for its label.
 */

/** The request fields that drive renting; the llm-instance and benchmark requests both fit. */
export type RentRequest = {
  template_hash?: string | undefined;
  min_dph: number;
  max_dph?: number | undefined;
  reliability: number;
  /** Only offers of this GPU (as the marketplace names it; a sweep rents one machine per GPU name). */
  gpu_name?: string | undefined;
};

export type RentCheapestFitOptions = {
  client: VastApi;
  request: RentRequest;
  /** The model's catalog entry: sizes the GPU (vram_mb), the disk (required_disk_gb) and the download (download_gb). */
  model: CatalogEntry;
  jobId: string;
  /** This data dir's install id: the label is `benchdesk:<install_id>:<job_id>`. */
  installId: string;
  signal?: AbortSignal;
  onEvent?: MarketplaceEventSink;
  /** Rent attempts across offers when they are taken under us or refused (default 4). */
  maxRentAttempts?: number;
  /** Offers fetched per search (default 1000: every fitting offer is ranked here by its whole expected cost, not only the cheapest per hour). */
  searchLimit?: number;
  /**
   * A create whose outcome is unknown (a timeout, a 5xx, an unreadable answer, a cancel while it
   * ran): the label is looked up `lookups` times, `delayMs` apart (doubling), before the rent gives
   * up; then `onLostRent` hears of it (the lease keeps looking, for minutes) and the rent fails.
   */
  lostRent?: { lookups?: number; delayMs?: number };
  onLostRent?: (info: { label: string; reason: string }) => void;
  /** Sent as OLLAMA_MODEL, or MODEL_NAME for vLLM (default model.name), e.g. the user's spelling "qwen3". */
  ollamaModel?: string;
  /** What the machine serves (default `ollama`): the template (a vLLM one is found by name without a hash), the model's env and the published port follow. */
  server?: RentedServer;
  /** The proxy token; random by default. */
  authToken?: string;
  /** More env for the container; ours (OLLAMA_MODEL or MODEL_NAME, OPEN_BUTTON_TOKEN) win on conflict. */
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
  /** The host's download price ($/GB); null when it does not say. */
  inetDownCost: number | null;
  /** RFC 3339, when the rent call returned. */
  rentedAt: string;
  template: { id: number; hash_id: string; name: string | null; image: string | null };
  /** How the server's port is reached: proxy auth required? TLS? */
  access: TemplateAccess;
  /** What it serves, and on which container port. */
  server: RentedServer;
  containerPort: number;
  /** Secret: the OPEN_BUTTON_TOKEN we set. Do not log it or put it in job results. */
  authToken: string;
};

function newAuthToken(): string {
  return randomBytes(24).toString('base64url');
}

function criteriaOf(request: RentRequest, model: CatalogEntry): OfferCriteria {
  return { minDph: request.min_dph, maxDph: request.max_dph ?? null, minReliability: request.reliability, minVramMb: model.vram_mb, minDiskGb: model.required_disk_gb };
}

function sameGpuName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

const DEFAULT_ESTIMATE_SECONDS = 3600;
/** Every fitting offer, ranked here: the server's order is by price per hour, not by the whole cost. */
const DEFAULT_RENT_SEARCH_LIMIT = 1000;

/** What the offers are ranked and pre-flighted by: the job's expected hours and the model's download. */
function costBasisOf(opts: RentCheapestFitOptions): CostBasis {
  return { hours: (opts.budget?.durationSeconds ?? DEFAULT_ESTIMATE_SECONDS) / 3600, downloadGb: modelDownloadGb(opts.model) };
}

async function searchFitting(opts: RentCheapestFitOptions, template: MarketplaceTemplate, criteria: OfferCriteria, exclude: ReadonlySet<number>): Promise<MarketplaceOffer[]> {
  const labels = {
    min_dph: criteria.minDph,
    max_dph: criteria.maxDph ?? null,
    reliability: criteria.minReliability,
    vram_mb: criteria.minVramMb ?? null,
    disk_gb: criteria.minDiskGb ?? null,
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
          minDiskGb: opts.model.required_disk_gb,
          limit: opts.searchLimit ?? DEFAULT_RENT_SEARCH_LIMIT,
          // Hosts that can run the template (its driver, CUDA...): the SDK's template_id and its extra_filters.
          template: { id: template.id, extraFilters: templateFilters(template.extra_filters) },
          ...(opts.request.gpu_name ? { extraFilters: { gpu_name: { eq: opts.request.gpu_name } } } : {}),
        },
        { signal: opts.signal },
      );
      // The server filtered already; the same rules again locally keep us from renting an unfit machine.
      const gpu = opts.request.gpu_name;
      return selectOffers(offers, criteria, costBasisOf(opts)).filter((o) => !exclude.has(o.id) && (!gpu || sameGpuName(o.gpu_name, gpu)));
    },
    (fit) => ({
      message: fit.length === 1 ? '1 offer fits' : `${fit.length} offers fit`,
      labels: { count: fit.length, cheapest_dph: fit[0]?.dph_total ?? null, cheapest_id: fit[0]?.id ?? null },
    }),
  );
}

/**
 * Instances carrying one of these labels (a job's: see labelsOfJob), found through the v1 list's
 * label filter: to recover an instance whose id we never learnt.
 */
export async function findLabelledInstances(client: VastApi, labels: readonly string[], signal?: AbortSignal): Promise<MarketplaceInstance[]> {
  const found = await client.listInstances({ labels, ...(signal ? { signal } : {}) });
  // The server filtered already; a filter it ignored must not make another machine ours.
  return found.filter((i) => i.label != null && labels.includes(i.label) && !isGone(i));
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
  const server = opts.server ?? 'ollama';
  const port = serverPort(server);
  if (!request.template_hash && server !== 'vllm') throw new MarketplaceProvisioningError('Renting a GPU needs a template (the Vast.ai template the machine starts from)', 'invalid_request');
  if (!request.max_dph || request.max_dph <= 0) {
    throw new MarketplaceProvisioningError('Renting a GPU needs a Max $/h (the most the machine may cost per hour)', 'invalid_request');
  }
  const template = await resolveTemplate(opts, request, server);
  const access = templateAccess(template, port, serverName(server));
  if (access.notes.length > 0) {
    emit(opts.onEvent, { event: MARKETPLACE_EVENTS.templateLookup, status: 'info', message: access.notes.join('; '), labels: { auth_required: access.authRequired, https: access.https } });
  }

  const criteria = criteriaOf(request, model);
  const authToken = opts.authToken ?? newAuthToken();
  const label = jobLabel(opts.installId, opts.jobId);
  const env: Record<string, string> = { ...opts.extraEnv, ...modelEnv(server, opts.ollamaModel ?? model.name), OPEN_BUTTON_TOKEN: authToken };
  // Vast's env dict takes port mappings as "-p H:C" keys; make sure the server's port is published.
  if (!access.exposesPort) env[`-p ${port}:${port}`] = '1';

  const maxAttempts = Math.max(1, opts.maxRentAttempts ?? 4);
  const tried = new Set<number>();
  let candidates = await searchFitting(opts, template, criteria, tried);
  if (candidates.length === 0) {
    throw new MarketplaceProvisioningError(
      `No offer fits (${describeCriteria(criteria)}, for ${model.name}). Raise Max $/h, lower the reliability, or pick a smaller model.`,
      'no_offers',
    );
  }
  let researched = false;
  let lastTaken = '';
  let lastRefusal = '';
  while (tried.size < maxAttempts) {
    let offer = candidates.shift();
    if (!offer) {
      if (researched) break;
      researched = true;
      candidates = await searchFitting(opts, template, criteria, tried);
      offer = candidates.shift();
      if (!offer) break;
    }
    tried.add(offer.id);
    const summary = toOfferSummary(offer, modelDownloadGb(model));
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
        inetDownCost: offer.inet_down_cost ?? null,
        rentedAt: new Date().toISOString(),
        template: { id: template.id, hash_id: template.hash_id, name: template.name ?? null, image: template.image ?? null },
        access,
        server,
        containerPort: port,
        authToken,
      };
    } catch (err) {
      const refused = err instanceof MarketplaceError && err.code === 'create_refused';
      if (!isNotThere(err) && !refused) throw err;
      lastTaken = errorMessage(err);
      // Vast's own words (credit, an offer gone...) are shown, then the next offer is tried.
      const why = refused ? `${lastTaken}; trying the next offer` : `offer ${offer.id} was taken before we could rent it; trying the next one`;
      lastRefusal = refused ? lastTaken : lastRefusal;
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: why, labels });
    }
  }
  if (lastRefusal) {
    throw new MarketplaceProvisioningError(`Vast.ai refused every fitting offer we tried (${tried.size}); the last answer: ${lastRefusal}`, 'create_refused');
  }
  throw new MarketplaceProvisioningError(
    `Every fitting offer we tried (${tried.size}) was taken before it could be rented (last: ${lastTaken}). Try again, or widen the price range.`,
    'offers_exhausted',
  );
}

/**
 * The pre-flight estimate of one offer: its hours at dph_total plus the model's download at the host's
 * inet_down_cost, against the job's max_cost_usd.
 */
function preflightEstimate(opts: RentCheapestFitOptions, offer: MarketplaceOffer): { labels: Record<string, number | null>; over: boolean; message: string } {
  const seconds = opts.budget?.durationSeconds ?? DEFAULT_ESTIMATE_SECONDS;
  const max = opts.budget?.maxCostUsd ?? null;
  const basis = costBasisOf(opts);
  const download = downloadUsd(offer, basis.downloadGb) ?? 0;
  const estimated = Math.round((offer.dph_total * (seconds / 3600) + download) * 10_000) / 10_000;
  const over = max !== null && estimated > max;
  const downloadNote = download > 0 ? `, plus $${download.toFixed(4)} to download ${basis.downloadGb} GB at $${offer.inet_down_cost}/GB` : '';
  return {
    labels: { estimated_cost_usd: estimated, estimated_duration_seconds: seconds, download_gb: basis.downloadGb ?? null, download_usd: download, max_cost_usd: max },
    over,
    message: over
      ? `the estimate before renting, $${estimated.toFixed(4)} (offer ${offer.id} at $${offer.dph_total}/h for the expected duration of ${seconds} s${downloadNote}), exceeds the spend limit of $${max}; nothing was rented`
      : '',
  };
}

async function rentOrRecover(
  opts: RentCheapestFitOptions,
  offer: MarketplaceOffer,
  params: { templateHashId: string; diskGb: number; label: string; env: Record<string, string> },
): Promise<number> {
  try {
    return (
      await opts.client.rentOffer(offer.id, params, {
        signal: opts.signal,
        onWait: (ms) => {
          if (ms >= 1000) emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `waiting ${Math.round(ms / 1000)} s for the marketplace's create pacing`, labels: { offer_id: offer.id, wait_ms: Math.round(ms) } });
        },
      })
    ).instanceId;
  } catch (err) {
    // A cancel while the create ran may land after Vast created the machine: the lease looks for it.
    if (opts.signal?.aborted) {
      opts.onLostRent?.({ label: params.label, reason: 'cancelled while the create ran' });
      throw err;
    }
    if (!mayHaveCreated(err)) throw err;
    // The instance may exist although we never saw its id: look for its label (v1 list) for a moment.
    const found = await lookForLabel(opts, params.label);
    if (found) {
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `rent answer lost (${errorMessage(err)}); found instance ${found.id} by its label ${params.label}`, labels: { instance_id: found.id } });
      return found.id;
    }
    opts.onLostRent?.({ label: params.label, reason: errorMessage(err) });
    throw new MarketplaceError(
      `${errorMessage(err)}; the marketplace may still create the machine: benchdesk keeps looking for its label ${params.label} and releases it if it appears`,
      err instanceof MarketplaceError ? err.code : 'network',
      err instanceof MarketplaceError ? err.status : null,
      err instanceof MarketplaceError ? err.endpoint : null,
      { cause: err },
    );
  }
}

/** A create whose outcome is unknown: it may have made a machine (a timeout, a lost or unreadable answer, a 5xx). */
export function mayHaveCreated(err: unknown): boolean {
  return err instanceof MarketplaceError && ['timeout', 'network', 'bad_response', 'upstream_unavailable'].includes(err.code);
}

/** A few quick looks for the label after a create whose answer was lost; a failed look counts as "not seen yet". */
async function lookForLabel(opts: RentCheapestFitOptions, label: string): Promise<MarketplaceInstance | null> {
  const lookups = Math.max(1, opts.lostRent?.lookups ?? 3);
  const delay = { initialMs: opts.lostRent?.delayMs ?? 2_000, factor: 2, maxMs: 10_000 };
  for (let attempt = 1; attempt <= lookups; attempt++) {
    const found = await findLabelledInstances(opts.client, [label], opts.signal).catch((err: unknown) => {
      emit(opts.onEvent, { event: MARKETPLACE_EVENTS.instanceCreate, status: 'info', message: `could not look for the label ${label} yet: ${errorMessage(err)}`, labels: { attempt } });
      return [];
    });
    const mine = found.find((i) => i.label === label);
    if (mine) return mine;
    if (attempt < lookups) await sleep(backoffDelay(attempt, delay), opts.signal).catch(() => undefined);
    if (opts.signal?.aborted) return null;
  }
  return null;
}
