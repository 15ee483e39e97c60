import type { CatalogEntry } from '../../shared/models';
import type { MarketplaceOffer } from './vast-wire';
import { ESTIMATE_OFFER_ITEMS, type CostEstimationRequest, type CostEstimationResponse } from '../../shared/requests';
import { modelDownloadGb, resolveCatalogModel, type Catalog } from './catalog';
import {
  compareOffers,
  describePriceRange,
  downloadUsd,
  median,
  offerTotalCost,
  offerUsable,
  selectOffers,
  toOfferSummary,
  type CostBasis,
  type OfferCriteria,
} from './offer-selection';
import { MarketplaceError } from './errors';
import { API_KEY_SETTING, type SearchOptions, type VastApi } from './vast-client';

/** Disk priced into `dph_total` when the model (and so its disk need) is unknown. */
export const DEFAULT_DISK_GB = 40;
/** Offers fetched for the statistics: the cheapest N that fit (the server sorts by price). */
export const ESTIMATE_OFFER_LIMIT = 64;
/** `/v1/estimates` is synchronous: a slow marketplace must not hold it for minutes. */
export const ESTIMATE_LIVE_TIMEOUT_MS = 15_000;
/**
 * An identical live search answered this recently is reused: a form that re-estimates as the user
 * types must not spend Vast's budget of about 10 searches a minute.
 */
export const ESTIMATE_SEARCH_MAX_AGE_MS = 30_000;

export type EstimateContext = {
  /** The request's model resolved in the catalog (null: no model, or not in the catalog). */
  model?: CatalogEntry | null;
  /** Why live offers are missing when a query was attempted and failed. */
  liveError?: string | null;
  /** What kind of failure `liveError` is (the Estimate page says "does not answer" apart from "no key"). */
  liveState?: 'unreachable' | 'key_refused' | 'failed';
  /** The marketplace's base URL, named in `marketplace_status`. */
  apiUrl?: string | null;
  /**
   * With a live search that found nothing in the price range: the same search without the range
   * (to name the nearest offer); null when that search was not made or failed.
   */
  outsideRange?: readonly MarketplaceOffer[] | null;
};

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** design §6: low < $1 ≤ medium < $10 ≤ high, on the unrounded expected cost. */
export function resourceImpact(costUsd: number): 'low' | 'medium' | 'high' {
  if (costUsd < 1) return 'low';
  if (costUsd < 10) return 'medium';
  return 'high';
}

export function criteriaFor(request: CostEstimationRequest, model: CatalogEntry | null | undefined): OfferCriteria {
  return {
    minDph: request.min_dph,
    maxDph: request.max_dph > 0 ? request.max_dph : null,
    minReliability: request.reliability,
    minVramMb: model?.vram_mb ?? null,
    minDiskGb: model?.required_disk_gb ?? DEFAULT_DISK_GB,
  };
}

/** The request's duration, and the model's download (from the catalog) when the model is known. */
export function costBasisFor(request: CostEstimationRequest, model: CatalogEntry | null | undefined): CostBasis {
  return { hours: request.estimated_duration_seconds / 3600, ...(model ? { downloadGb: modelDownloadGb(model) } : {}) };
}

/**
 * The cost estimate of design §6, pure. `offers` is the live search result, or null when no live
 * query was made (no key) or it failed (`context.liveError` says why). With live offers the expected
 * cost is the cheapest fitting offer's total: its hours plus the model's download on that host.
 */
export function estimateFromOffers(
  request: CostEstimationRequest,
  offers: readonly MarketplaceOffer[] | null,
  context: EstimateContext = {},
): CostEstimationResponse {
  const hours = request.estimated_duration_seconds / 3600;
  if (!request.marketplace) {
    return {
      projected_cost_usd: 0,
      cost_driver: 'unknown',
      resource_impact: 'low',
      local_energy_kwh: 0,
      confidence_score: 0,
      warning: 'No cost driver selected: set marketplace to true to estimate the cost of a rented GPU. An existing backend costs nothing here.',
      basis: 'none',
      hours: round4(hours),
      cost_range_usd: { low: 0, expected: 0, high: 0 },
      offers: null,
    };
  }

  const model = context.model ?? null;
  const criteria = criteriaFor(request, model);
  const basis = costBasisFor(request, model);
  const warnings: string[] = [];
  let confidencePenalty = 0;
  if (request.model && !model) {
    warnings.push(`Model "${request.model}" is not in the marketplace catalog, so offers were not filtered by GPU memory and no download is counted (add it to extra_catalog_models in settings.json in the data dir).`);
    confidencePenalty = 0.2;
  }

  if (offers !== null) {
    const fit = selectOffers(offers, criteria, basis);
    const cheapest = fit[0];
    if (cheapest) {
      const prices = fit.map((o) => o.dph_total);
      const totals = fit.map((o) => offerTotalCost(o, basis));
      // Provisioning rents the cheapest fitting offer in total, so that is the expected cost. The high
      // end is the dearest fitting offer: what we would pay if the cheaper ones were taken before we rent.
      const expected = totals[0] as number;
      const high = Math.max(...totals);
      return {
        projected_cost_usd: round4(expected),
        cost_driver: 'marketplace',
        resource_impact: resourceImpact(expected),
        local_energy_kwh: 0,
        confidence_score: round4(Math.max(0.1, (fit.length >= 3 ? 0.9 : 0.8) - confidencePenalty)),
        warning: warnings.length ? warnings.join(' ') : null,
        basis: 'live_offers',
        hours: round4(hours),
        cost_range_usd: { low: round4(expected), expected: round4(expected), high: round4(high) },
        offers: {
          count: fit.length,
          min_dph: round4(Math.min(...prices)),
          median_dph: round4(median(prices)),
          max_dph: round4(Math.max(...prices)),
          cheapest: toOfferSummary(cheapest, basis.downloadGb),
          items: fit.slice(0, ESTIMATE_OFFER_ITEMS).map((o) => toOfferSummary(o, basis.downloadGb)),
        },
      };
    }
    return noOffers(request, hours, warnings, nearestOffer(context.outsideRange ?? offers, criteria, basis), model);
  }

  const apiUrl = context.apiUrl ?? null;
  if (context.liveError) {
    warnings.push(`The live offer search failed (${context.liveError}), so this is estimated from the price range only.`);
    const status = { state: context.liveState ?? 'failed', message: context.liveError, api_url: apiUrl } as const;
    return { ...priceRange(request, hours, warnings, 0.4 - confidencePenalty), marketplace_status: status };
  }
  warnings.push(`No ${API_KEY_SETTING} set: estimated from the price range only, not live offers.`);
  const status = { state: 'no_key', message: `no marketplace key: set ${API_KEY_SETTING} (or add a key in the desktop app's Settings)`, api_url: apiUrl } as const;
  return { ...priceRange(request, hours, warnings, 0.5 - confidencePenalty), marketplace_status: status };
}

/** The cheapest offer (in total) that fits everything but the price range, or null. */
function nearestOffer(offers: readonly MarketplaceOffer[], criteria: OfferCriteria, basis: CostBasis): MarketplaceOffer | null {
  return offers.filter((o) => offerUsable(o, criteria)).sort((a, b) => compareOffers(a, b, basis))[0] ?? null;
}

/**
 * The live search worked and nothing fits the price range: no cost is given for a machine that does
 * not exist. The warning says what would fit, and `nearest_offer` is what raising the range would get.
 */
function noOffers(
  request: CostEstimationRequest,
  hours: number,
  warnings: string[],
  nearest: MarketplaceOffer | null,
  model: CatalogEntry | null,
): CostEstimationResponse {
  const range = describePriceRange({ minDph: request.min_dph, maxDph: request.max_dph > 0 ? request.max_dph : null });
  const forModel = model ? ` for ${model.name}` : '';
  const basis = costBasisFor(request, model);
  let sentence = `No offer fits ${range}${forModel}`;
  if (nearest) {
    const what = `${nearest.num_gpus > 1 ? `${nearest.num_gpus}× ` : 'an '}${nearest.gpu_name}`;
    const download = downloadUsd(nearest, basis.downloadGb);
    sentence += `; the cheapest that fits ${model ? 'the model' : 'the other criteria'} is ${what} at $${nearest.dph_total.toFixed(2)}/h`;
    if (download) sentence += ` (plus $${download.toFixed(2)} to download the model)`;
  } else {
    sentence += `, and no offer on the marketplace fits ${model ? 'the model' : 'the other criteria'} at any price right now`;
  }
  return {
    projected_cost_usd: 0,
    cost_driver: 'marketplace',
    resource_impact: 'low',
    local_energy_kwh: 0,
    confidence_score: 0,
    warning: [`${sentence}.`, ...warnings].join(' '),
    basis: 'no_offers',
    hours: round4(hours),
    cost_range_usd: { low: 0, expected: 0, high: 0 },
    offers: null,
    nearest_offer: nearest ? toOfferSummary(nearest, basis.downloadGb) : null,
  };
}

/** Without live prices: expected = midpoint of [min_dph, max_dph], high = max, low = min. */
function priceRange(request: CostEstimationRequest, hours: number, warnings: string[], confidence: number): CostEstimationResponse {
  const lowDph = request.min_dph;
  const highDph = request.max_dph > 0 ? request.max_dph : request.min_dph;
  if (request.max_dph <= 0) {
    warnings.push(highDph > 0 ? 'No Max $/h given: the cost is priced at Min $/h alone.' : 'No price range given (Min $/h and Max $/h are 0): the cost is unknown.');
    confidence = Math.min(confidence, highDph > 0 ? 0.3 : 0.1);
  }
  const expected = ((lowDph + highDph) / 2) * hours;
  return {
    projected_cost_usd: round4(expected),
    cost_driver: 'marketplace',
    resource_impact: resourceImpact(expected),
    local_energy_kwh: 0,
    confidence_score: round4(Math.max(0.1, confidence)),
    warning: warnings.join(' '),
    basis: 'price_range',
    hours: round4(hours),
    cost_range_usd: { low: round4(lowDph * hours), expected: round4(expected), high: round4(highDph * hours) },
    offers: null,
  };
}

export type EstimateDeps = {
  /** null/undefined: no marketplace key configured. */
  client?: Pick<VastApi, 'searchOffers'> | null;
  catalog?: Catalog;
  signal?: AbortSignal;
  liveTimeoutMs?: number;
  /** The marketplace's base URL (said in marketplace_status when it does not answer). */
  apiUrl?: string;
};

/** A failed live search as "does not answer" (no response, 5xx), "refused the key", or another failure. */
function liveStateOf(err: unknown, timedOut: boolean): 'unreachable' | 'key_refused' | 'failed' {
  if (timedOut) return 'unreachable';
  if (!(err instanceof MarketplaceError)) return 'failed';
  if (err.code === 'auth') return 'key_refused';
  return err.code === 'timeout' || err.code === 'network' || err.code === 'upstream_unavailable' ? 'unreachable' : 'failed';
}

/**
 * The estimate with live offers when a client (key) is available. When nothing fits the price range,
 * a second search without the range names the nearest offer (`basis: "no_offers"`). A failed live
 * query falls back to the price range with the reason in `warning`; only the caller's own abort is rethrown.
 */
export async function estimateCost(request: CostEstimationRequest, deps: EstimateDeps = {}): Promise<CostEstimationResponse> {
  const model = request.model ? resolveCatalogModel(request.model, deps.catalog) : null;
  const client = deps.client;
  const apiUrl = deps.apiUrl ?? null;
  if (!request.marketplace || !client) return estimateFromOffers(request, null, { model, apiUrl });
  const criteria = criteriaFor(request, model);
  const liveTimeoutMs = deps.liveTimeoutMs ?? ESTIMATE_LIVE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(liveTimeoutMs);
  const signal = deps.signal ? AbortSignal.any([timeout, deps.signal]) : timeout;
  const options: SearchOptions = { signal, maxAgeMs: ESTIMATE_SEARCH_MAX_AGE_MS, maxWaitMs: liveTimeoutMs };
  const search = (withRange: boolean) =>
    client.searchOffers(
      {
        ...(withRange ? { minDph: criteria.minDph, maxDph: criteria.maxDph ?? undefined } : {}),
        minReliability: criteria.minReliability,
        ...(model ? { minGpuTotalRamMb: model.vram_mb } : {}),
        allocatedStorageGb: criteria.minDiskGb ?? DEFAULT_DISK_GB,
        minDiskGb: criteria.minDiskGb ?? DEFAULT_DISK_GB,
        limit: ESTIMATE_OFFER_LIMIT,
      },
      options,
    );
  let offers: MarketplaceOffer[];
  try {
    offers = await search(true);
  } catch (err) {
    if (deps.signal?.aborted) throw err;
    const why = timeout.aborted ? `the marketplace did not answer in time (${liveTimeoutMs / 1000} s)` : err instanceof Error ? err.message : String(err);
    return estimateFromOffers(request, null, { model, liveError: why, liveState: liveStateOf(err, timeout.aborted), apiUrl });
  }
  if (selectOffers(offers, criteria).length > 0) return estimateFromOffers(request, offers, { model });
  // Nothing in the range: what is the nearest machine? (A failure here still leaves a true "no offer fits".)
  const outsideRange = await search(false).catch((err: unknown) => {
    if (deps.signal?.aborted) throw err;
    return null;
  });
  return estimateFromOffers(request, offers, { model, outsideRange });
}
