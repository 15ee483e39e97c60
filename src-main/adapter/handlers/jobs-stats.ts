import type { JobStore } from '../../store/types';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

/** Job counts per status and kind, straight from the store's in-memory index (no record reads). */
export function jobStatsHandlers(store: Pick<JobStore, 'countJobs'>): Pick<OperationHandlers, 'getJobCounts'> {
  return {
    async getJobCounts(ctx, input) {
      const { kind, q } = parseInput('getJobCounts', input ?? {});
      return store.countJobs(ctx.tenantId, kind, q);
    },
  };
}
