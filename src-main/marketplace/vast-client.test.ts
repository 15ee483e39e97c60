import { describe, expect, it } from 'vitest';
import { backoffDelay } from './sleep';
import { VastClient, buildOfferSearchBody, parseRetryAfter } from './vast-client';

describe('vast client (pure parts)', () => {
  it('builds the bundles body with operator objects and control keys: only offers a job can use', () => {
    expect(buildOfferSearchBody({ minDph: 0.1, maxDph: 0.5, minReliability: 0.99, minGpuRamMb: 24000, allocatedStorageGb: 41, minDiskGb: 41, limit: 10 })).toEqual({
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
      direct_port_count: { gte: 1 },
      disk_space: { gte: 41 },
      dph_total: { gte: 0.1, lte: 0.5 },
      // The documented filter name (the CLI's since 2024), not the offer field reliability2.
      reliability: { gte: 0.99 },
      gpu_ram: { gte: 24000 },
      order: [['dph_total', 'asc'], ['reliability2', 'desc']],
      type: 'on-demand',
      allocated_storage: 41,
      limit: 10,
    });
    const loose = buildOfferSearchBody({ maxDph: 0, minGpuTotalRamMb: 8000 });
    expect(loose.dph_total).toBeUndefined();
    expect(loose.disk_space).toBeUndefined();
    expect(loose.direct_port_count).toEqual({ gte: 1 });
    expect(loose.gpu_total_ram).toEqual({ gte: 8000 });
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000);
    expect(parseRetryAfter('soon')).toBeNull();
  });

  it('grows the backoff and caps it', () => {
    const o = { initialMs: 150, factor: 1.5, maxMs: 400 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, o))).toEqual([150, 225, 337.5, 400]);
    const j = backoffDelay(1, { ...o, jitter: 0.2 }, () => 1);
    expect(j).toBeCloseTo(180);
  });

  it('finds the v1 endpoints beside the v0 base URL', () => {
    expect(new VastClient({ baseUrl: 'https://console.vast.ai/api/v0', apiKey: 'k' }).v1BaseUrl).toBe('https://console.vast.ai/api/v1');
    expect(new VastClient({ baseUrl: 'http://127.0.0.1:9/api/v0/', apiKey: 'k' }).v1BaseUrl).toBe('http://127.0.0.1:9/api/v1');
  });

  it('refuses bad configuration without echoing the key', () => {
    expect(() => new VastClient({ baseUrl: 'ftp://x', apiKey: 'k' })).toThrow(/http/);
    expect(() => new VastClient({ baseUrl: 'http://x', apiKey: '  ' })).toThrow(/VAST_API_KEY is empty/);
    const bad = 'secret\nvalue';
    try {
      new VastClient({ baseUrl: 'http://x', apiKey: bad });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/VAST_API_KEY/);
      expect((err as Error).message).not.toContain('secret');
    }
  });
});
