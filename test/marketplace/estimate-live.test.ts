import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateCost } from '../../src-main/marketplace/estimate';
import { VastClient } from '../../src-main/marketplace/vast-client';
import { CostEstimationRequestSchema, CostEstimationResponseSchema } from '../../shared/requests';
import { DEAR_DOWNLOAD_OFFER, NO_DIRECT_PORTS_OFFER, startFakeVast, type FakeVast } from '../fakes/vast';
import { clientFor, expectKeyOnlyInHeader, must } from './helpers';

let vast: FakeVast;
beforeEach(async () => {
  vast = await startFakeVast();
});
afterEach(async () => {
  expectKeyOnlyInHeader(vast);
  await vast.close();
});

const req = (o: Record<string, unknown>) => CostEstimationRequestSchema.parse({ marketplace: true, ...o });

describe('estimateCost against the fake marketplace', () => {
  it('uses live offers that fit range, reliability and the model VRAM, priced with its disk', async () => {
    const r = CostEstimationResponseSchema.parse(
      await estimateCost(req({ min_dph: 0.1, max_dph: 0.5, model: 'qwen3:32b', estimated_duration_seconds: 7200 }), { client: clientFor(vast) }),
    );
    // 3090 at 0.16 + storage for 59 GB (0.15 $/GB/month ÷ 720 h × 59), two hours, plus its 20 GB download at $0.00123/GB.
    const cheapest = 0.16 + (0.15 * 59) / 720;
    const download = 20 * 0.00123;
    expect(r).toMatchObject({ basis: 'live_offers', cost_driver: 'marketplace', hours: 2, warning: null });
    expect(r.projected_cost_usd).toBeCloseTo(cheapest * 2 + download, 4);
    expect(r.offers).toMatchObject({ count: 5, cheapest: { id: 20000002, gpu_name: 'RTX 3090', num_gpus: 1, inet_down_cost: 0.00123, download_usd: 0.0246 } });
    expect(must(r.offers).min_dph).toBeCloseTo(cheapest, 4);
    expect(r.cost_range_usd.high).toBeGreaterThan(r.cost_range_usd.expected);
    expect(must(vast.callsTo('bundles')[0]).body).toMatchObject({
      gpu_total_ram: { gte: 23500 }, allocated_storage: 59, disk_space: { gte: 59 }, dph_total: { gte: 0.1, lte: 0.5 }, reliability: { gte: 0.99 }, direct_port_count: { gte: 1 }, external: { eq: false },
    });
  });

  it('the cheapest is the cheapest in total: never a host without direct ports, and a $40/TB host loses to its download', async () => {
    const r = CostEstimationResponseSchema.parse(await estimateCost(req({ min_dph: 0.01, max_dph: 0.1, model: 'llama3.1:8b' }), { client: clientFor(vast) }));
    // The RTX 3060 at $0.065/h (+ 41 GB of storage) with a 4.9 GB download at $1.23/TB beats the one at
    // $0.06/h whose host charges $40/TB ($0.196 for the download); the $0.05/h one has no direct port.
    const machine = 0.065 + (0.15 * 41) / 720;
    expect(r.offers?.cheapest).toMatchObject({ id: 20000001, download_usd: 0.006 });
    expect(r.projected_cost_usd).toBeCloseTo(machine + 0.006, 4);
    expect(r.offers?.items?.map((o) => o.id)).toEqual([20000001, DEAR_DOWNLOAD_OFFER]);
    expect(r.offers?.items?.find((o) => o.id === DEAR_DOWNLOAD_OFFER)).toMatchObject({ inet_down_cost: 0.04, download_usd: 0.196 });
    expect(r.offers?.items?.map((o) => o.id)).not.toContain(NO_DIRECT_PORTS_OFFER);
    expect(r.cost_range_usd.high).toBeCloseTo(0.06 + (0.15 * 41) / 720 + 0.196, 4);
  });

  it('no offer fits the price range: basis no_offers, no invented cost, the nearest offer named in plain words', async () => {
    const r = CostEstimationResponseSchema.parse(await estimateCost(req({ min_dph: 0.01, max_dph: 0.1, model: 'qwen2.5:32b' }), { client: clientFor(vast) }));
    expect(r).toMatchObject({
      basis: 'no_offers', projected_cost_usd: 0, cost_range_usd: { low: 0, expected: 0, high: 0 }, offers: null, confidence_score: 0,
      nearest_offer: { id: 20000002, gpu_name: 'RTX 3090', download_usd: 0.0246 },
    });
    expect(r.warning).toBe('No offer fits $0.01–$0.10/h for qwen2.5:32b; the cheapest that fits the model is an RTX 3090 at $0.17/h (plus $0.02 to download the model).');
    // One search with the range, one without it to name the nearest machine.
    const searches = vast.callsTo('bundles').map((c) => c.body as Record<string, unknown>);
    expect(searches).toHaveLength(2);
    expect(searches[0]).toHaveProperty('dph_total');
    expect(searches[1]).not.toHaveProperty('dph_total');

    const none = await estimateCost(req({ min_dph: 0.01, max_dph: 0.1, model: 'llama3.1:405b' }), { client: clientFor(vast) });
    expect(none).toMatchObject({ basis: 'no_offers', nearest_offer: null, projected_cost_usd: 0 });
    expect(none.warning).toMatch(/no offer on the marketplace fits the model at any price right now/);
  });

  it('falls back to the price range with the reason when the live search fails (the key is rejected)', async () => {
    const client = new VastClient({ baseUrl: vast.url, apiKey: 'bad-key' });
    const r = await estimateCost(req({ min_dph: 1, max_dph: 3 }), { client });
    expect(r).toMatchObject({ basis: 'price_range', projected_cost_usd: 2 });
    expect(r.warning).toMatch(/^The live offer search failed \(Vast\.ai rejected the API key.*VAST_API_KEY/);
    expect(r.warning).not.toContain('bad-key');
  });

  it('falls back when the marketplace keeps failing', async () => {
    vast.setKnob('failNext', { count: 100, status: 503 });
    const r = await estimateCost(req({ min_dph: 1, max_dph: 3 }), { client: clientFor(vast) });
    expect(r.basis).toBe('price_range');
    expect(r.warning).toMatch(/HTTP 503/);
  });
});
