import type { SpendCache } from '../../app/spend';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

export type OverviewHandlerDeps = { spend: SpendCache };

/** The Overview's figures that no other operation gives: spend today and this month. */
export function overviewHandlers(deps: OverviewHandlerDeps): Pick<OperationHandlers, 'getSpendSummary'> {
  return {
    async getSpendSummary(ctx, input) {
      parseInput('getSpendSummary', input);
      return deps.spend.get(ctx.tenantId);
    },
  };
}
