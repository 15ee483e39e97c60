import type { MarketplaceOffer } from './vast-wire';
import type { OfferSummary } from '../../shared/requests';

/**
 * Pure offer filtering and ordering. The server filters too, but we apply the same rules locally
 * so a filter the server ignored (or a changed field) can never make us rent an unfit machine.
 */

export type OfferCriteria = {
  minDph: number;
  /** null, undefined or 0: no ceiling. */
  maxDph?: number | null;
  /** Fraction 0–1. */
  minReliability: number;
  /** The model's need in MB (catalog `vram_mb`); omitted when the model is unknown. */
  minVramMb?: number | null;
};

/** `reliability2` is the current score; `reliability` the older one. Missing counts as 0. */
export function offerReliability(offer: MarketplaceOffer): number {
  return offer.reliability2 ?? offer.reliability ?? 0;
}

/** All GPUs together, MB: Ollama spreads layers across GPUs, so the total is what a model can use. */
export function offerTotalVramMb(offer: MarketplaceOffer): number {
  if (offer.gpu_total_ram !== null && offer.gpu_total_ram !== undefined && offer.gpu_total_ram > 0) return offer.gpu_total_ram;
  return offer.gpu_ram * Math.max(1, offer.num_gpus);
}

export function isRentable(offer: MarketplaceOffer): boolean {
  return offer.rentable !== false && offer.rented !== true;
}

export function offerFits(offer: MarketplaceOffer, c: OfferCriteria): boolean {
  if (!isRentable(offer)) return false;
  if (!Number.isFinite(offer.dph_total) || offer.dph_total < c.minDph) return false;
  if (c.maxDph && offer.dph_total > c.maxDph) return false;
  if (offerReliability(offer) < c.minReliability) return false;
  if (c.minVramMb && offerTotalVramMb(offer) < c.minVramMb) return false;
  return true;
}

/** Cheapest first; equal prices → more reliable first; then lower id, so the order is deterministic. */
export function compareOffers(a: MarketplaceOffer, b: MarketplaceOffer): number {
  return a.dph_total - b.dph_total || offerReliability(b) - offerReliability(a) || a.id - b.id;
}

/** The offers that fit, best first. */
export function selectOffers(offers: readonly MarketplaceOffer[], criteria: OfferCriteria): MarketplaceOffer[] {
  return offers.filter((o) => offerFits(o, criteria)).sort(compareOffers);
}

export function toOfferSummary(offer: MarketplaceOffer): OfferSummary {
  return {
    id: offer.id,
    gpu_name: offer.gpu_name,
    num_gpus: offer.num_gpus,
    gpu_ram: offer.gpu_ram,
    dph_total: offer.dph_total,
    reliability: offerReliability(offer),
    geolocation: offer.geolocation ?? null,
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One line for messages: "$0.10–$0.50/h, reliability ≥ 0.99, ≥ 8000 MB VRAM". */
export function describeCriteria(c: OfferCriteria): string {
  const ceiling = c.maxDph ? `$${c.minDph}–$${c.maxDph}/h` : `≥ $${c.minDph}/h`;
  const vram = c.minVramMb ? `, ≥ ${c.minVramMb} MB VRAM` : '';
  return `${ceiling}, reliability ≥ ${c.minReliability}${vram}`;
}
