import type { CatalogEntry } from '../../shared/models';
import { modelDownloadGb } from '../marketplace/catalog';
import { offerTotalVramMb, offerUsable, inPriceRange, type OfferCriteria } from '../marketplace/offer-selection';
import type { MarketplaceOffer } from '../marketplace/vast-wire';

/**
 * One machine per GPU name (design §14), pure: from the offers of that GPU, which models can run on
 * it at all, and what the one machine must hold. The machine is sized for the largest model that
 * fits some offer; a model that fits no offer (or is not in the catalog) is skipped with its reason,
 * and a GPU with no model that fits rents nothing.
 */

export type MachinePlan = {
  gpu: string;
  /** The models that run on the machine, in the request's order. */
  models: string[];
  skipped: { model: string; reason: string }[];
  /** What the rent asks for: the largest fitting model's memory, disk for every fitting model. null: nothing to rent. */
  sizing: CatalogEntry | null;
  /** The cheapest fitting offer's $/h (for the pre-flight estimate); null when none. */
  cheapestDph: number | null;
};

/** Room on disk for the image and OS, as the catalog's rule. */
const BASE_DISK_GB = 32;

const gb = (mb: number): string => `${(mb / 1024).toFixed(mb >= 10_240 ? 0 : 1)} GB`;

export function sameGpu(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The disk one machine rents for these models (GB): every model is pulled onto the same disk, so
 * their downloads with slack, plus the image and OS, and never less than the largest one needs.
 */
export function plannedDiskGb(models: readonly CatalogEntry[]): number {
  const downloads = models.reduce((sum, m) => sum + modelDownloadGb(m), 0);
  const largest = models.reduce((max, m) => Math.max(max, m.required_disk_gb), 0);
  return Math.max(largest, Math.ceil(downloads * 1.15) + BASE_DISK_GB);
}

export function planMachine(
  gpu: string,
  models: readonly string[],
  resolve: (model: string) => CatalogEntry | undefined,
  offers: readonly MarketplaceOffer[],
  criteria: Omit<OfferCriteria, 'minVramMb' | 'minDiskGb'>,
): MachinePlan {
  // Usable (direct port, rentable, reliable enough) and within the price range, of this GPU.
  const candidates = offers.filter((o) => sameGpu(o.gpu_name, gpu) && offerUsable(o, criteria) && inPriceRange(o, criteria));
  const largest = candidates.reduce((max, o) => Math.max(max, offerTotalVramMb(o)), 0);
  const fitting: CatalogEntry[] = [];
  const names: string[] = [];
  const skipped: MachinePlan['skipped'] = [];
  for (const model of models) {
    const entry = resolve(model);
    if (!entry) {
      skipped.push({ model, reason: `${model} is not in the marketplace catalog, so its memory need is unknown` });
    } else if (candidates.length === 0) {
      skipped.push({ model, reason: `no ${gpu} offer fits the price range and reliability asked` });
    } else if (entry.vram_mb > largest) {
      skipped.push({ model, reason: `${model} needs ${gb(entry.vram_mb)} of GPU memory; the largest ${gpu} offer has ${gb(largest)}` });
    } else {
      fitting.push(entry);
      names.push(model);
    }
  }
  if (fitting.length === 0) return { gpu, models: [], skipped, sizing: null, cheapestDph: null };
  const biggest = fitting.reduce((a, b) => (b.vram_mb > a.vram_mb ? b : a));
  const downloads = fitting.reduce((sum, m) => sum + modelDownloadGb(m), 0);
  const sizing: CatalogEntry = { name: biggest.name, vram_mb: biggest.vram_mb, required_disk_gb: plannedDiskGb(fitting), download_gb: Math.round(downloads * 10) / 10 };
  const fits = candidates.filter((o) => offerTotalVramMb(o) >= biggest.vram_mb);
  const cheapestDph = fits.reduce<number | null>((min, o) => (min === null || o.dph_total < min ? o.dph_total : min), null);
  return { gpu, models: names, skipped, sizing, cheapestDph };
}
