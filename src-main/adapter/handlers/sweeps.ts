import { API_PATHS } from '../../../shared';
import type { SweepEngine } from '../../sweeps/sweep-engine';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

type SweepOperation = 'createSweep' | 'listSweeps' | 'getSweep' | 'cancelSweep' | 'getSweepReport';

/** The sweep operations (design §14), over the sweep engine. Tenant rules as jobs: another tenant's sweep is a 404. */
export function sweepHandlers(sweeps: SweepEngine): Pick<OperationHandlers, SweepOperation> {
  return {
    async createSweep(ctx, input) {
      // The engine checks the body with SweepRequestSchema (400 not an object, 422 invalid), for every transport alike.
      const record = await sweeps.create(ctx.tenantId, input);
      if (ctx.responseHeaders) ctx.responseHeaders.location = API_PATHS.sweep(record.sweep_id);
      return { sweep_id: record.sweep_id, status: 'accepted' as const };
    },
    async listSweeps(ctx, input) {
      parseInput('listSweeps', input);
      return { sweeps: await sweeps.list(ctx.tenantId) };
    },
    async getSweep(ctx, input) {
      return sweeps.get(ctx.tenantId, parseInput('getSweep', input).sweep_id);
    },
    async cancelSweep(ctx, input) {
      return sweeps.cancel(ctx.tenantId, parseInput('cancelSweep', input).sweep_id);
    },
    async getSweepReport(ctx, input) {
      const { sweep_id, format } = parseInput('getSweepReport', input);
      const report = await sweeps.report(ctx.tenantId, sweep_id, format);
      // Over HTTP the Markdown and CSV are the body itself, with their media type.
      if (ctx.responseHeaders && typeof report === 'string') {
        ctx.responseHeaders['content-type'] = format === 'md' ? 'text/markdown; charset=utf-8' : 'text/csv; charset=utf-8';
        if (format === 'csv') ctx.responseHeaders['content-disposition'] = `attachment; filename="${sweep_id}.csv"`;
      }
      return report;
    },
  };
}
