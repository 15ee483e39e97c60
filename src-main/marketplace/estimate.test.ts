import { describe, expect, it } from 'vitest';
import type { MarketplaceOffer } from './vast-wire';
import { CostEstimationRequestSchema, CostEstimationResponseSchema, ESTIMATE_OFFER_ITEMS, type CostEstimationResponse } from '../../shared/requests';
import { resolveCatalogModel } from './catalog';
import { MarketplaceError, MarketplaceTransportError } from './errors';
import { estimateCost, estimateFromOffers, resourceImpact } from './estimate';

const req = (o: Record<string, unknown>) => CostEstimationRequestSchema.parse(o);
/** A usable offer (a direct port, a big disk) whose downloads are free unless `inet_down_cost` says otherwise. */
const offer = (id: number, dph: number, o: Partial<MarketplaceOffer> = {}): MarketplaceOffer => ({
  id, gpu_name: 'RTX 4090', num_gpus: 1, gpu_ram: 24564, gpu_total_ram: 24564, dph_total: dph, reliability2: 0.995, geolocation: 'Texas, US',
  direct_port_count: 12, disk_space: 500, inet_down_cost: 0, ...o,
});
const valid = (r: CostEstimationResponse): CostEstimationResponse => CostEstimationResponseSchema.parse(r);

describe('estimateFromOffers', () => {
  it('without a driver: unknown, zero, with a warning', () => {
    const r = valid(estimateFromOffers(req({ min_dph: 1, max_dph: 2 }), null));
    expect(r).toMatchObject({ cost_driver: 'unknown', projected_cost_usd: 0, basis: 'none', resource_impact: 'low', local_energy_kwh: 0, hours: 1 });
    expect(r.warning).toMatch(/No cost driver/);
  });

  it('price range without a key: expected = midpoint, low = min, high = max', () => {
    const r = valid(estimateFromOffers(req({ marketplace: true, min_dph: 2, max_dph: 4, estimated_duration_seconds: 7200 }), null));
    expect(r).toMatchObject({
      cost_driver: 'marketplace', basis: 'price_range', hours: 2, projected_cost_usd: 6, resource_impact: 'medium',
      cost_range_usd: { low: 4, expected: 6, high: 8 }, offers: null, local_energy_kwh: 0,
    });
    expect(r.warning).toMatch(/VAST_API_KEY/);
    expect(r.confidence_score).toBeLessThan(0.9);
  });

  it('rounds money to 4 decimals and grades the impact on the unrounded cost', () => {
    const r = estimateFromOffers(req({ marketplace: true, min_dph: 0.123456, max_dph: 0.123456, estimated_duration_seconds: 1000 }), null);
    expect(r.projected_cost_usd).toBe(0.0343);
    expect(r.hours).toBe(0.2778);
    expect(resourceImpact(0.99999)).toBe('low');
    expect(resourceImpact(1)).toBe('medium');
    expect(resourceImpact(9.99999)).toBe('medium');
    expect(resourceImpact(10)).toBe('high');
    expect(estimateFromOffers(req({ marketplace: true, min_dph: 15, max_dph: 15 }), null).resource_impact).toBe('high');
  });

  it('live offers: cheapest fitting offer × hours, with count/min/median/max and the cheapest', () => {
    const model = resolveCatalogModel('qwen3:32b');
    const offers = [
      offer(1, 0.5),
      offer(2, 0.3),
      offer(3, 0.4, { reliability2: 0.9 }), // unreliable
      offer(4, 0.2, { gpu_ram: 12288, gpu_total_ram: 12288 }), // too small for 32b
      offer(5, 0.7),
      offer(6, 5), // over max
      offer(7, 0.15, { direct_port_count: 0 }), // no direct port: 11434 would never map
      offer(8, 0.16, { disk_space: 20 }), // too little disk for the model
    ];
    const r = valid(estimateFromOffers(req({ marketplace: true, min_dph: 0.1, max_dph: 1, model: 'qwen3:32b', estimated_duration_seconds: 5400 }), offers, { model }));
    expect(r).toMatchObject({
      basis: 'live_offers', cost_driver: 'marketplace', hours: 1.5, projected_cost_usd: 0.45, warning: null,
      cost_range_usd: { low: 0.45, expected: 0.45, high: 1.05 },
      offers: { count: 3, min_dph: 0.3, median_dph: 0.5, max_dph: 0.7, cheapest: { id: 2, dph_total: 0.3, gpu_name: 'RTX 4090', reliability: 0.995, geolocation: 'Texas, US' } },
    });
    expect(r.confidence_score).toBeGreaterThanOrEqual(0.8);
    // The table of fitting offers: cheapest first, the unfit ones left out.
    expect(r.offers?.items?.map((o) => [o.id, o.dph_total])).toEqual([[2, 0.3], [1, 0.5], [5, 0.7]]);
  });

  it('lists at most ESTIMATE_OFFER_ITEMS offers, cheapest first', () => {
    const many = Array.from({ length: ESTIMATE_OFFER_ITEMS + 10 }, (_, i) => offer(i + 1, 1 + (ESTIMATE_OFFER_ITEMS + 10 - i) / 100));
    const r = valid(estimateFromOffers(req({ marketplace: true, max_dph: 5 }), many));
    const items = r.offers?.items ?? [];
    expect(items).toHaveLength(ESTIMATE_OFFER_ITEMS);
    expect(r.offers?.count).toBe(ESTIMATE_OFFER_ITEMS + 10);
    expect(items[0]?.id).toBe(r.offers?.cheapest.id);
    for (let i = 1; i < items.length; i++) expect(items[i]?.dph_total ?? 0).toBeGreaterThanOrEqual(items[i - 1]?.dph_total ?? 0);
  });

  it('live offers include the model download in the cost: the cheapest in total, not by the hour', () => {
    const model = resolveCatalogModel('qwen2.5:32b'); // a 20 GB download
    const offers = [offer(1, 0.3, { inet_down_cost: 0.04 }), offer(2, 0.35, { inet_down_cost: 0.003 })];
    const r = valid(estimateFromOffers(req({ marketplace: true, max_dph: 1, model: 'qwen2.5:32b' }), offers, { model }));
    // Offer 2: $0.35 + 20 GB × $0.003 = $0.41; offer 1: $0.30 + 20 × $0.04 = $1.10.
    expect(r).toMatchObject({ basis: 'live_offers', projected_cost_usd: 0.41, cost_range_usd: { low: 0.41, expected: 0.41, high: 1.1 } });
    expect(r.offers?.cheapest).toMatchObject({ id: 2, inet_down_cost: 0.003, download_usd: 0.06 });
    expect(r.offers?.items?.map((o) => [o.id, o.download_usd])).toEqual([[2, 0.06], [1, 0.8]]);
  });

  it('no offer fits the price range: no invented cost, the nearest offer and a warning in plain words', () => {
    const model = resolveCatalogModel('qwen2.5:32b');
    const request = req({ marketplace: true, min_dph: 0.1, max_dph: 0.2, model: 'qwen2.5:32b' });
    const outsideRange = [offer(1, 0.5), offer(2, 0.41), offer(3, 0.3, { gpu_ram: 12288, gpu_total_ram: 12288 }), offer(4, 0.2, { direct_port_count: 0 })];
    const r = valid(estimateFromOffers(request, [offer(4, 0.2, { direct_port_count: 0 })], { model, outsideRange }));
    expect(r).toMatchObject({
      basis: 'no_offers', cost_driver: 'marketplace', projected_cost_usd: 0, cost_range_usd: { low: 0, expected: 0, high: 0 }, offers: null, confidence_score: 0,
      nearest_offer: { id: 2, gpu_name: 'RTX 4090', dph_total: 0.41 },
    });
    expect(r.warning).toBe('No offer fits $0.10–$0.20/h for qwen2.5:32b; the cheapest that fits the model is an RTX 4090 at $0.41/h.');
    const none = valid(estimateFromOffers(request, [], { model, outsideRange: [offer(3, 0.3, { gpu_ram: 12288, gpu_total_ram: 12288 })] }));
    expect(none).toMatchObject({ basis: 'no_offers', nearest_offer: null, projected_cost_usd: 0 });
    expect(none.warning).toMatch(/^No offer fits \$0\.10–\$0\.20\/h for qwen2\.5:32b, and no offer on the marketplace fits the model at any price right now\.$/);
  });

  it('a failed live query says it failed and why (not that a key is missing), and keeps the price range', () => {
    const r = valid(estimateFromOffers(req({ marketplace: true, min_dph: 1, max_dph: 3 }), null, { liveError: 'HTTP 503' }));
    expect(r.warning).toMatch(/The live offer search failed \(HTTP 503\)/);
    expect(r.warning).not.toMatch(/key/i);
    expect(r.basis).toBe('price_range');
  });

  it('warns when the model is not in the catalog and when there is no range', () => {
    const unknown = valid(estimateFromOffers(req({ marketplace: true, min_dph: 0, max_dph: 1, model: 'mystery:7b' }), [offer(1, 0.3)], { model: null }));
    expect(unknown.basis).toBe('live_offers');
    expect(unknown.warning).toMatch(/not in the marketplace catalog/);
    const noRange = valid(estimateFromOffers(req({ marketplace: true }), null));
    expect(noRange.projected_cost_usd).toBe(0);
    expect(noRange.warning).toMatch(/No price range given \(Min \$\/h and Max \$\/h are 0\)/);
    expect(noRange.confidence_score).toBeLessThanOrEqual(0.1);
    const minOnly = valid(estimateFromOffers(req({ marketplace: true, min_dph: 2 }), null));
    expect(minOnly.cost_range_usd).toEqual({ low: 2, expected: 2, high: 2 });
    expect(minOnly.warning).toMatch(/No Max \$\/h given: the cost is priced at Min \$\/h alone/);
  });
});

describe('estimateCost', () => {
  it('uses the price range without a client', async () => {
    const r = await estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3 }));
    expect(r.basis).toBe('price_range');
  });

  it('falls back with the reason when the client fails, and passes the model sizing to the search', async () => {
    let seen: unknown;
    const client = {
      searchOffers: async (q: unknown) => {
        seen = q;
        throw new MarketplaceError('Vast.ai rejected the API key. Check the VAST_API_KEY setting.', 'auth', 401);
      },
    };
    const r = await estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3, model: 'llama3.1:8b' }), { client });
    expect(r.basis).toBe('price_range');
    expect(r.warning).toMatch(/VAST_API_KEY/);
    expect(r.marketplace_status).toMatchObject({ state: 'key_refused' });
    expect(seen).toMatchObject({ minDph: 1, maxDph: 3, minReliability: 0.99, minGpuTotalRamMb: 8000, allocatedStorageGb: 41 });
  });

  it('times out a slow marketplace', async () => {
    const client = {
      searchOffers: (_q: unknown, opts?: { signal?: AbortSignal }) =>
        new Promise<MarketplaceOffer[]>((_, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const r = await estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3 }), { client, liveTimeoutMs: 50, apiUrl: 'https://console.vast.ai/api/v0' });
    expect(r.warning).toMatch(/did not answer in time/);
    expect(r.marketplace_status).toEqual({ state: 'unreachable', message: 'the marketplace did not answer in time (0.05 s)', api_url: 'https://console.vast.ai/api/v0' });
  });

  it('tells a marketplace that cannot be reached apart from a missing key', async () => {
    const client = {
      searchOffers: async () => {
        throw new MarketplaceTransportError('POST /bundles/ failed: could not reach console.vast.ai (ECONNREFUSED)', 'network', 'POST /bundles/');
      },
    };
    const down = await estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3 }), { client, apiUrl: 'https://console.vast.ai/api/v0' });
    expect(down.marketplace_status).toEqual({ state: 'unreachable', message: 'POST /bundles/ failed: could not reach console.vast.ai (ECONNREFUSED)', api_url: 'https://console.vast.ai/api/v0' });
    const noKey = await estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3 }), { client: null, apiUrl: 'https://console.vast.ai/api/v0' });
    expect(noKey.marketplace_status?.state).toBe('no_key');
    // An answer is not a status: live offers carry none.
    const live = await estimateCost(req({ marketplace: true, min_dph: 0, max_dph: 3 }), { client: { searchOffers: async () => [] } });
    expect(live.marketplace_status).toBeUndefined();
  });

  it("rethrows the caller's own abort", async () => {
    const ac = new AbortController();
    const client = {
      searchOffers: (_q: unknown, opts?: { signal?: AbortSignal }) =>
        new Promise<MarketplaceOffer[]>((_, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const p = estimateCost(req({ marketplace: true, min_dph: 1, max_dph: 3 }), { client, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow('aborted');
  });
});
