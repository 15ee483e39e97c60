import { describe, expect, it } from 'vitest';
import type { OfferSummary, SweepCell } from '../../../shared';
import { gpuChoices, heatOf, preflight } from './sweep-model';

const offer = (gpu: string, dph: number, ram = 24_576, n = 1): OfferSummary => ({ id: Math.round(dph * 1000), gpu_name: gpu, num_gpus: n, gpu_ram: ram, dph_total: dph, reliability: 0.99, geolocation: null });
const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'm', gpu: 'g', status: 'succeeded', job_ids: [], cost_usd: 0, ...over });

describe('sweep page model', () => {
  it('one GPU choice per name: the cheapest $/h, the largest memory', () => {
    expect(gpuChoices([offer('RTX 4090', 0.3), offer('RTX 3090', 0.16), offer('RTX 4090', 0.25), offer('RTX 3090', 0.33, 24_576, 2)])).toEqual([
      { gpu: 'RTX 3090', dph: 0.16, offers: 2, ramMb: 49_152 },
      { gpu: 'RTX 4090', dph: 0.25, offers: 2, ramMb: 24_576 },
    ]);
  });

  it('pre-flight: fitting models × minutes plus the overhead, at each GPU’s cheapest rate; a model too large adds nothing', () => {
    const models = [
      { name: 'a', vram_mb: 8000, required_disk_gb: 40 },
      { name: 'b', vram_mb: 50_000, required_disk_gb: 90 },
    ];
    const est = preflight(models, [{ gpu: 'RTX 3090', dph: 0.2, offers: 1, ramMb: 24_576 }, { gpu: 'A100', dph: 1.2, offers: 1, ramMb: 81_920 }], 10);
    expect(est.perGpu[0]).toEqual({ gpu: 'RTX 3090', models: 1, skipped: 1, hours: 0.25, usd: 0.05 });
    expect(est.perGpu[1]?.hours).toBeCloseTo(25 / 60);
    expect(est.machineHours).toBeCloseTo(0.25 + 25 / 60);
    expect(est.usd).toBeCloseTo(0.05 + 0.5);
  });

  it('heat: accuracy as it is; $/1M scaled cheapest = 1, dearest = 0; no figure, no heat', () => {
    const cells = [cell({ accuracy: 0.7, usd_per_million_output_tokens: 2 }), cell({ accuracy: 0.2, usd_per_million_output_tokens: 1 }), cell({ status: 'failed' }), cell({ usd_per_million_output_tokens: 3 })];
    expect(heatOf(cells, 'accuracy')).toEqual([0.7, 0.2, null, null]);
    expect(heatOf(cells, 'usd_per_million')).toEqual([0.5, 1, null, 0]);
  });
});
