import type { SpendSummary } from '../../../shared';
import { Stat } from '../../components/Page';
import { formatCount, formatUsd } from '../../lib/format';

/**
 * Spend today and this month, as the server's spend summary gives it. The lease's ledger (kept
 * machines up to their release, sweeps, downloads) will feed the same summary; its finer figures
 * (what of it is machines still billing, sweeps, downloads) go in the hints here.
 */
export function SpendStats({ spend }: { spend: SpendSummary | undefined }) {
  return (
    <>
      <Stat
        label="Spend today"
        value={spend ? formatUsd(spend.today.cost_usd) : '…'}
        hint={spend ? `${formatCount(spend.today.jobs, 'job')} with a cost` : '\u00a0'}
        testId="stat-spend-today"
      />
      <Stat
        label="Spend this month"
        value={spend ? formatUsd(spend.this_month.cost_usd) : '…'}
        hint={spend ? `${formatCount(spend.this_month.jobs, 'job')} with a cost` : '\u00a0'}
        testId="stat-spend-month"
      />
    </>
  );
}
