import type { CostEstimationResponse } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';

/** What the pre-flight found before renting: the estimate (or why there is none) and the draft's bounds. */
export type Preflight = {
  estimate: CostEstimationResponse | null;
  estimateError: BenchdeskApiError | null;
  hours: number;
  maxDph: number;
  /** The job's spend limit ($), null = none. */
  maxCost: number | null;
  /** The machine outlives the job (llm-instance, or a benchmark that keeps it). */
  kept: boolean;
};

/**
 * Whether to ask before renting, given the "ask before launching from $X" setting (0 = always):
 * a launch whose expected cost (from live offers) stays under the threshold goes ahead. Asked
 * whenever the cost is not known from live offers, and for a machine kept after the job (it bills
 * until released, whatever the estimate says).
 */
export function needsConfirmation(p: Preflight, thresholdUsd: number): boolean {
  if (thresholdUsd <= 0 || p.kept) return true;
  if (!p.estimate || p.estimate.basis !== 'live_offers') return true;
  return p.estimate.cost_range_usd.expected >= thresholdUsd;
}

/** Rounds a rate up to the cent, so "raise the ceiling to it" includes the offer. */
export function ceilingFor(dph: number): number {
  return Math.ceil(dph * 100 - 1e-9) / 100;
}
