import type { BenchdeskClient, CostEstimationResponse } from '../../shared';
import { CliError, EXIT, UsageError } from './exit-codes';
import { err, formatUsd, note } from './output';

/** Above this many dollars (the estimate's high end) a marketplace rent asks first. */
export const DEFAULT_SPEND_CONFIRM_USD = 5;

export function spendThreshold(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCHDESK_SPEND_CONFIRM_USD?.trim();
  if (!raw) return DEFAULT_SPEND_CONFIRM_USD;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`BENCHDESK_SPEND_CONFIRM_USD=${JSON.stringify(raw)} is not a dollar amount (a number ≥ 0)`);
  return n;
}

export type RentPlan = { min_dph: number; max_dph: number; reliability: number; model: string; estimated_duration_seconds?: number };

export function describeEstimate(e: CostEstimationResponse): string[] {
  const lines = [
    `estimate (${e.basis === 'live_offers' ? 'live offers' : e.basis === 'price_range' ? 'your price range' : e.basis === 'no_offers' ? 'no offer fits' : 'no basis'}, ${e.hours} h): ` +
      `${formatUsd(e.cost_range_usd.expected, 2)} expected, ${formatUsd(e.cost_range_usd.low, 2)}–${formatUsd(e.cost_range_usd.high, 2)}, impact ${e.resource_impact}`,
  ];
  if (e.offers) {
    const c = e.offers.cheapest;
    lines.push(`  ${e.offers.count === 1 ? '1 offer fits' : `${e.offers.count} offers fit`}, $${e.offers.min_dph.toFixed(3)}–$${e.offers.max_dph.toFixed(3)}/h; cheapest ${c.num_gpus}× ${c.gpu_name} (${Math.round(c.gpu_ram / 1024)} GB) at $${c.dph_total.toFixed(3)}/h`);
  }
  if (e.warning) lines.push(`  note: ${e.warning}`);
  return lines;
}

/**
 * Before a marketplace rent (design §7): print the estimate; above BENCHDESK_SPEND_CONFIRM_USD
 * ask on a terminal; without a terminal refuse unless --yes (exit 2: the invocation lacks --yes).
 */
export async function confirmSpend(client: BenchdeskClient, plan: RentPlan, options: { yes: boolean; interactive?: boolean }): Promise<CostEstimationResponse> {
  const estimate = await client.createEstimate({ marketplace: true, ...plan });
  for (const line of describeEstimate(estimate)) note(line);
  const threshold = spendThreshold();
  const worst = estimate.cost_range_usd.high;
  if (worst <= threshold || options.yes) return estimate;
  const interactive = options.interactive ?? (process.stdin.isTTY === true && process.stderr.isTTY === true);
  const over = `this may cost up to ${formatUsd(worst, 2)}, above the ${formatUsd(threshold, 2)} confirmation threshold (BENCHDESK_SPEND_CONFIRM_USD)`;
  if (!interactive) {
    throw new CliError(`${over}; not a terminal, so nothing was rented. Re-run with --yes to accept the spend.`, EXIT.usage);
  }
  const { confirm, isCancel } = await import('@clack/prompts');
  const answer = await confirm({ message: `${over}. Rent the machine?`, initialValue: false, output: process.stderr });
  if (isCancel(answer)) throw new CliError('interrupted: nothing was rented', EXIT.interrupted);
  if (!answer) throw new CliError('not confirmed: nothing was rented');
  note(err.dim('confirmed'));
  return estimate;
}
