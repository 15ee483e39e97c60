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
  /** The disk the rent asks for (GB): a host with less free disk cannot take it. */
  minDiskGb?: number | null;
};

/** What an offer is expected to cost: its hours at `dph_total`, plus the model's download at `inet_down_cost`. */
export type CostBasis = {
  hours: number;
  /** The model's download (GB); 0 or omitted when unknown. */
  downloadGb?: number;
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

/** A job can reach its Ollama only through a direct port; an offer that does not report one cannot be used. */
export function hasDirectPorts(offer: MarketplaceOffer): boolean {
  return typeof offer.direct_port_count === 'number' && offer.direct_port_count >= 1;
}

/** Everything but the price range: what the machine must be for the job to run on it at all. */
export function offerUsable(offer: MarketplaceOffer, c: OfferCriteria): boolean {
  if (!isRentable(offer) || offer.external === true || !hasDirectPorts(offer)) return false;
  if (!Number.isFinite(offer.dph_total)) return false;
  if (offerReliability(offer) < c.minReliability) return false;
  if (c.minVramMb && offerTotalVramMb(offer) < c.minVramMb) return false;
  if (c.minDiskGb && !(typeof offer.disk_space === 'number' && offer.disk_space >= c.minDiskGb)) return false;
  return true;
}

export function inPriceRange(offer: MarketplaceOffer, c: OfferCriteria): boolean {
  return offer.dph_total >= c.minDph && !(c.maxDph && offer.dph_total > c.maxDph);
}

export function offerFits(offer: MarketplaceOffer, c: OfferCriteria): boolean {
  return offerUsable(offer, c) && inPriceRange(offer, c);
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** The model's download on this host ($), or null when the host does not say what downloads cost. */
export function downloadUsd(offer: MarketplaceOffer, downloadGb: number | undefined): number | null {
  if (offer.inet_down_cost === null || offer.inet_down_cost === undefined || !Number.isFinite(offer.inet_down_cost)) return null;
  return round4(Math.max(0, offer.inet_down_cost) * Math.max(0, downloadGb ?? 0));
}

/** Expected total ($): hours × dph_total + the download (an unknown download price counts as 0). */
export function offerTotalCost(offer: MarketplaceOffer, basis: CostBasis): number {
  return offer.dph_total * basis.hours + (downloadUsd(offer, basis.downloadGb) ?? 0);
}

/** Cheapest total first; equal totals → more reliable first; then lower id, so the order is deterministic. */
export function compareOffers(a: MarketplaceOffer, b: MarketplaceOffer, basis: CostBasis = { hours: 1 }): number {
  return offerTotalCost(a, basis) - offerTotalCost(b, basis) || offerReliability(b) - offerReliability(a) || a.id - b.id;
}

/** The offers that fit, best (cheapest in total for `basis`) first. */
export function selectOffers(offers: readonly MarketplaceOffer[], criteria: OfferCriteria, basis: CostBasis = { hours: 1 }): MarketplaceOffer[] {
  return offers.filter((o) => offerFits(o, criteria)).sort((a, b) => compareOffers(a, b, basis));
}

export function toOfferSummary(offer: MarketplaceOffer, downloadGb?: number): OfferSummary {
  return {
    id: offer.id,
    gpu_name: offer.gpu_name,
    num_gpus: offer.num_gpus,
    gpu_ram: offer.gpu_ram,
    dph_total: offer.dph_total,
    reliability: offerReliability(offer),
    geolocation: offer.geolocation ?? null,
    inet_down_cost: offer.inet_down_cost ?? null,
    download_usd: downloadUsd(offer, downloadGb),
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** "$0.10–$0.20/h" (or "at least $0.10/h" without a ceiling). */
export function describePriceRange(c: Pick<OfferCriteria, 'minDph' | 'maxDph'>): string {
  return c.maxDph ? `$${c.minDph.toFixed(2)}–$${c.maxDph.toFixed(2)}/h` : `at least $${c.minDph.toFixed(2)}/h`;
}

/** Messages say GB and percentages, like the app's forms (catalog needs are in MB, reliability a fraction). */
function formatGb(gb: number): string {
  return `${Number(gb.toFixed(1))} GB`;
}
function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}

/** One line for messages: "$0.10–$0.50/h, reliability ≥ 99%, ≥ 7.8 GB GPU memory, ≥ 41 GB disk". */
export function describeCriteria(c: OfferCriteria): string {
  const ceiling = c.maxDph ? `$${c.minDph}–$${c.maxDph}/h` : `≥ $${c.minDph}/h`;
  const vram = c.minVramMb ? `, ≥ ${formatGb(c.minVramMb / 1024)} GPU memory` : '';
  const disk = c.minDiskGb ? `, ≥ ${c.minDiskGb} GB disk` : '';
  return `${ceiling}, reliability ≥ ${formatPercent(c.minReliability)}${vram}${disk}, a direct port`;
}
