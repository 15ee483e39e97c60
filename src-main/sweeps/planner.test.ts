import { describe, expect, it } from 'vitest';
import type { MarketplaceOffer } from '../marketplace/vast-wire';
import { planMachine } from './planner';

describe('planner', () => {
  const offer = (id: number, gpu: string, ram: number, dph: number, over: Partial<MarketplaceOffer> = {}) =>
    ({ id, gpu_name: gpu, gpu_ram: ram, num_gpus: 1, dph_total: dph, reliability2: 0.999, direct_port_count: 1, rentable: true, ...over }) as MarketplaceOffer;
  const catalog = (m: string) => ({ 'a:8b': { name: 'a:8b', vram_mb: 8000, required_disk_gb: 42, download_gb: 5 }, 'b:70b': { name: 'b:70b', vram_mb: 50_000, required_disk_gb: 80, download_gb: 43 } })[m];
  const criteria = { minDph: 0, maxDph: 5, minReliability: 0.9 };

  it('sizes the machine for the largest model that fits, disk for every model; skips the rest with the reason', () => {
    const plan = planMachine('RTX 4090', ['a:8b', 'b:70b', 'c:1b'], catalog, [offer(1, 'RTX 4090', 24_564, 0.3), offer(2, 'RTX 4090', 24_564, 0.25), offer(3, 'A100', 81_920, 1)], criteria);
    expect(plan.models).toEqual(['a:8b']);
    expect(plan.sizing).toMatchObject({ name: 'a:8b', vram_mb: 8000 });
    expect(plan.cheapestDph).toBe(0.25);
    expect(plan.skipped).toEqual([
      { model: 'b:70b', reason: 'b:70b needs 49 GB of GPU memory; the largest RTX 4090 offer has 24 GB' },
      { model: 'c:1b', reason: 'c:1b is not in the marketplace catalog, so its memory need is unknown' },
    ]);
  });

  it('nothing to rent when no offer of the GPU is usable (no direct port, over the price)', () => {
    const plan = planMachine('L4', ['a:8b'], catalog, [offer(1, 'L4', 24_000, 9), offer(2, 'L4', 24_000, 0.1, { direct_port_count: 0 })], criteria);
    expect(plan.sizing).toBeNull();
    expect(plan.skipped[0]?.reason).toMatch(/no L4 offer fits/);
  });

  it('two models on one machine: the disk holds both downloads', () => {
    const plan = planMachine('A100', ['a:8b', 'b:70b'], catalog, [offer(3, 'A100', 81_920, 1)], criteria);
    expect(plan.sizing?.vram_mb).toBe(50_000);
    expect(plan.sizing?.required_disk_gb).toBe(Math.ceil(48 * 1.15) + 32);
  });
});
