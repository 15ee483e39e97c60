import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateCost } from '../../src-main/marketplace/estimate';
import { VastClient } from '../../src-main/marketplace/vast-client';
import { CostEstimationRequestSchema, CostEstimationResponseSchema } from '../../shared/requests';
import { startFakeVast, type FakeVast } from '../fakes/vast';
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
    // 3090 at 0.16 + storage for 59 GB (0.15 $/GB/month ÷ 720 h × 59)
    const cheapest = 0.16 + (0.15 * 59) / 720;
    expect(r).toMatchObject({ basis: 'live_offers', cost_driver: 'marketplace', hours: 2, warning: null });
    expect(r.projected_cost_usd).toBeCloseTo(cheapest * 2, 4);
    expect(r.offers).toMatchObject({ count: 5, cheapest: { id: 20000002, gpu_name: 'RTX 3090', num_gpus: 1 } });
    expect(must(r.offers).min_dph).toBeCloseTo(cheapest, 4);
    expect(r.cost_range_usd.high).toBeGreaterThan(r.cost_range_usd.expected);
    expect(must(vast.callsTo('bundles')[0]).body).toMatchObject({ gpu_total_ram: { gte: 23500 }, allocated_storage: 59, dph_total: { gte: 0.1, lte: 0.5 }, reliability2: { gte: 0.99 } });
  });

  it('falls back to the price range when no offer fits', async () => {
    const r = await estimateCost(req({ min_dph: 0.01, max_dph: 0.02 }), { client: clientFor(vast) });
    expect(r.basis).toBe('price_range');
    expect(r.warning).toMatch(/No live offer fits/);
  });

  it('falls back with the reason when the key is rejected', async () => {
    const client = new VastClient({ baseUrl: vast.url, apiKey: 'bad-key' });
    const r = await estimateCost(req({ min_dph: 1, max_dph: 3 }), { client });
    expect(r).toMatchObject({ basis: 'price_range', projected_cost_usd: 2 });
    expect(r.warning).toMatch(/Live offers unavailable \(Vast\.ai rejected the API key.*VAST_API_KEY/);
    expect(r.warning).not.toContain('bad-key');
  });

  it('falls back when the marketplace keeps failing', async () => {
    vast.setKnob('failNext', { count: 100, status: 503 });
    const r = await estimateCost(req({ min_dph: 1, max_dph: 3 }), { client: clientFor(vast) });
    expect(r.basis).toBe('price_range');
    expect(r.warning).toMatch(/HTTP 503/);
  });
});
