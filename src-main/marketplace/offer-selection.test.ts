import { describe, expect, it } from 'vitest';
import type { MarketplaceOffer } from './vast-wire';
import { compareOffers, downloadUsd, median, offerFits, offerReliability, offerTotalCost, offerTotalVramMb, selectOffers, toOfferSummary } from './offer-selection';

function offer(o: Partial<MarketplaceOffer> & { id: number; dph_total: number }): MarketplaceOffer {
  return {
    gpu_name: 'RTX 4090', num_gpus: 1, gpu_ram: 24564, gpu_total_ram: 24564, reliability2: 0.995, rentable: true, rented: false, geolocation: 'Texas, US',
    direct_port_count: 12, disk_space: 500, external: false, inet_down_cost: 0.00123,
    ...o,
  };
}

const criteria = { minDph: 0.1, maxDph: 1, minReliability: 0.99, minVramMb: 20000 };

describe('offer selection', () => {
  it('keeps offers inside the price range, reliable enough, big enough and rentable', () => {
    expect(offerFits(offer({ id: 1, dph_total: 0.5 }), criteria)).toBe(true);
    expect(offerFits(offer({ id: 2, dph_total: 0.05 }), criteria)).toBe(false);
    expect(offerFits(offer({ id: 3, dph_total: 1.01 }), criteria)).toBe(false);
    expect(offerFits(offer({ id: 4, dph_total: 1 }), criteria)).toBe(true);
    expect(offerFits(offer({ id: 5, dph_total: 0.1 }), criteria)).toBe(true);
    expect(offerFits(offer({ id: 6, dph_total: 0.5, reliability2: 0.98 }), criteria)).toBe(false);
    expect(offerFits(offer({ id: 7, dph_total: 0.5, gpu_ram: 12288, gpu_total_ram: 12288 }), criteria)).toBe(false);
    expect(offerFits(offer({ id: 8, dph_total: 0.5, rented: true }), criteria)).toBe(false);
    expect(offerFits(offer({ id: 9, dph_total: 0.5, rentable: false }), criteria)).toBe(false);
  });

  it('only offers a job can use: a direct port, enough free disk, not external (unknown counts as unusable)', () => {
    const c = { ...criteria, minDiskGb: 41 };
    expect(offerFits(offer({ id: 1, dph_total: 0.5 }), c)).toBe(true);
    expect(offerFits(offer({ id: 2, dph_total: 0.5, direct_port_count: 0 }), c)).toBe(false);
    expect(offerFits(offer({ id: 3, dph_total: 0.5, direct_port_count: null }), c)).toBe(false);
    expect(offerFits(offer({ id: 4, dph_total: 0.5, disk_space: 40 }), c)).toBe(false);
    expect(offerFits(offer({ id: 5, dph_total: 0.5, disk_space: null }), c)).toBe(false);
    expect(offerFits(offer({ id: 6, dph_total: 0.5, external: true }), c)).toBe(false);
    expect(offerFits(offer({ id: 7, dph_total: 0.5, external: null }), c)).toBe(true);
  });

  it('ranks by the expected total: hours × dph_total plus the model download × inet_down_cost', () => {
    const cheapHourDearDownload = offer({ id: 1, dph_total: 0.2, inet_down_cost: 0.04 }); // $40/TB
    const dearerHourCheapDownload = offer({ id: 2, dph_total: 0.25, inet_down_cost: 0.003 }); // $3/TB
    const basis = { hours: 1, downloadGb: 20 };
    expect(downloadUsd(cheapHourDearDownload, 20)).toBe(0.8);
    expect(offerTotalCost(cheapHourDearDownload, basis)).toBeCloseTo(1.0, 10);
    expect(offerTotalCost(dearerHourCheapDownload, basis)).toBeCloseTo(0.31, 10);
    expect(selectOffers([cheapHourDearDownload, dearerHourCheapDownload], criteria, basis).map((o) => o.id)).toEqual([2, 1]);
    // Over 100 hours the download matters less than the hourly price.
    expect(selectOffers([cheapHourDearDownload, dearerHourCheapDownload], criteria, { hours: 100, downloadGb: 20 }).map((o) => o.id)).toEqual([1, 2]);
    // A host that does not say what downloads cost: no download cost can be named.
    expect(downloadUsd(offer({ id: 3, dph_total: 0.2, inet_down_cost: null }), 20)).toBeNull();
  });

  it('counts the memory of all GPUs, falling back to gpu_ram × num_gpus', () => {
    const twoCards = offer({ id: 1, dph_total: 0.5, num_gpus: 2, gpu_ram: 12288, gpu_total_ram: null });
    expect(offerTotalVramMb(twoCards)).toBe(24576);
    expect(offerFits(twoCards, criteria)).toBe(true);
    expect(offerTotalVramMb(offer({ id: 2, dph_total: 1, num_gpus: 2, gpu_ram: 24000, gpu_total_ram: 48000 }))).toBe(48000);
  });

  it('reads reliability2, then reliability, else 0', () => {
    expect(offerReliability(offer({ id: 1, dph_total: 1, reliability2: 0.97, reliability: 0.5 }))).toBe(0.97);
    expect(offerReliability(offer({ id: 1, dph_total: 1, reliability2: null, reliability: 0.96 }))).toBe(0.96);
    expect(offerReliability(offer({ id: 1, dph_total: 1, reliability2: undefined, reliability: undefined }))).toBe(0);
  });

  it('treats a max of 0 or null as no ceiling and an unknown model as no VRAM filter', () => {
    expect(offerFits(offer({ id: 1, dph_total: 50 }), { minDph: 0, maxDph: 0, minReliability: 0 })).toBe(true);
    expect(offerFits(offer({ id: 1, dph_total: 50, gpu_total_ram: 1 }), { minDph: 0, maxDph: null, minReliability: 0, minVramMb: null })).toBe(true);
  });

  it('orders cheapest first, then more reliable, then by id', () => {
    const offers = [
      offer({ id: 30, dph_total: 0.3, reliability2: 0.999 }),
      offer({ id: 10, dph_total: 0.2, reliability2: 0.995 }),
      offer({ id: 21, dph_total: 0.2, reliability2: 0.999 }),
      offer({ id: 20, dph_total: 0.2, reliability2: 0.999 }),
      offer({ id: 5, dph_total: 0.01 }),
    ];
    expect(selectOffers(offers, criteria).map((o) => o.id)).toEqual([20, 21, 10, 30]);
    expect([...offers].sort(compareOffers).map((o) => o.id)).toEqual([5, 20, 21, 10, 30]);
  });

  it('does not mutate its input', () => {
    const offers = [offer({ id: 2, dph_total: 0.9 }), offer({ id: 1, dph_total: 0.2 })];
    selectOffers(offers, criteria);
    expect(offers.map((o) => o.id)).toEqual([2, 1]);
  });

  it('summarises an offer in the shared OfferSummary shape', () => {
    expect(toOfferSummary(offer({ id: 7, dph_total: 0.31, geolocation: undefined }), 10)).toEqual({
      id: 7, gpu_name: 'RTX 4090', num_gpus: 1, gpu_ram: 24564, dph_total: 0.31, reliability: 0.995, geolocation: null, inet_down_cost: 0.00123, download_usd: 0.0123,
    });
  });

  it('computes medians', () => {
    expect(median([])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
