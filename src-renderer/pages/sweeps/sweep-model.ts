import type { CatalogEntry, OfferSummary, SweepCell, SweepRecord } from '../../../shared';

/**
 * The Sweeps page's arithmetic, pure: the GPU choices from live offers, the pre-flight estimate
 * of machine-hours and dollars, and the heat of each matrix cell.
 */

export type GpuChoice = { gpu: string; dph: number; offers: number; ramMb: number };

/** One choice per GPU name: its cheapest $/h and its largest memory among the offers. */
export function gpuChoices(items: readonly OfferSummary[]): GpuChoice[] {
  const byGpu = new Map<string, GpuChoice>();
  for (const o of items) {
    const ram = o.gpu_ram * Math.max(1, o.num_gpus);
    const seen = byGpu.get(o.gpu_name);
    if (!seen) byGpu.set(o.gpu_name, { gpu: o.gpu_name, dph: o.dph_total, offers: 1, ramMb: ram });
    else byGpu.set(o.gpu_name, { gpu: o.gpu_name, dph: Math.min(seen.dph, o.dph_total), offers: seen.offers + 1, ramMb: Math.max(seen.ramMb, ram) });
  }
  return [...byGpu.values()].sort((a, b) => a.dph - b.dph || a.gpu.localeCompare(b.gpu));
}

export type Preflight = {
  /** Per chosen GPU: the models that fit it, the hours its machine is held, what that costs. */
  perGpu: { gpu: string; models: number; skipped: number; hours: number; usd: number }[];
  machineHours: number;
  usd: number;
};

/** Minutes a machine spends before its first model and after its last (rent, boot, release). */
export const MACHINE_OVERHEAD_MINUTES = 5;

/**
 * What the sweep is expected to cost: each GPU's machine is held for its fitting models ×
 * `minutesPerModel` plus the overhead, at that GPU's cheapest $/h. A model too large for a GPU's
 * largest offer adds nothing there (it is skipped).
 */
export function preflight(models: readonly CatalogEntry[], gpus: readonly GpuChoice[], minutesPerModel: number): Preflight {
  const perGpu = gpus.map((g) => {
    const fitting = models.filter((m) => m.vram_mb <= g.ramMb).length;
    const hours = fitting === 0 ? 0 : (fitting * minutesPerModel + MACHINE_OVERHEAD_MINUTES) / 60;
    return { gpu: g.gpu, models: fitting, skipped: models.length - fitting, hours, usd: hours * g.dph };
  });
  return { perGpu, machineHours: perGpu.reduce((s, g) => s + g.hours, 0), usd: perGpu.reduce((s, g) => s + g.usd, 0) };
}

export type HeatMetric = 'accuracy' | 'usd_per_million';

/** The cell's figure for the metric, or null when it has none. */
export function metricOf(cell: SweepCell, metric: HeatMetric): number | null {
  return metric === 'accuracy' ? (cell.accuracy ?? null) : (cell.usd_per_million_output_tokens ?? null);
}

/**
 * 0 (worst) … 1 (best) per cell, null without a figure. Accuracy is its own scale (0–100 %); $/1M
 * tokens is scaled between the sweep's cheapest (1) and dearest (0) cell.
 */
export function heatOf(cells: readonly SweepCell[], metric: HeatMetric): (number | null)[] {
  if (metric === 'accuracy') return cells.map((c) => (c.status === 'succeeded' && c.accuracy !== undefined ? c.accuracy : null));
  const values = cells.map((c) => (c.status === 'succeeded' ? metricOf(c, metric) : null));
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return values;
  const min = Math.min(...present);
  const max = Math.max(...present);
  return values.map((v) => (v === null ? null : max === min ? 1 : 1 - (v - min) / (max - min)));
}

/** The default metric: accuracy when the sweep runs a suite, else $/1M tokens. */
export function defaultMetric(sweep: Pick<SweepRecord, 'request'>): HeatMetric {
  return sweep.request.suite_id !== undefined ? 'accuracy' : 'usd_per_million';
}

/** Models and GPUs of the matrix, in the request's order. */
export function axesOf(sweep: Pick<SweepRecord, 'cells'>): { models: string[]; gpus: string[] } {
  return { models: [...new Set(sweep.cells.map((c) => c.model))], gpus: [...new Set(sweep.cells.map((c) => c.gpu))] };
}
