import { API_PATHS } from '../../../shared';
import type { BenchdeskService } from '../../app/service-types';
import { parseInput } from '../parse-input';
import { openEventFeed, openJobEventStream } from '../streams';
import type { OperationHandlers } from '../types';

type CoreOperation =
  | 'getHealth'
  | 'createEstimate'
  | 'createJob'
  | 'listJobs'
  | 'getJob'
  | 'cancelJob'
  | 'getJobEvents'
  | 'streamJobEvents'
  | 'streamEvents'
  | 'listCatalog'
  | 'listLlmModels'
  | 'getMetricsSummary';

/** The jobs, estimate, catalog, model and metrics operations, over the service. */
export function coreHandlers(service: BenchdeskService): Pick<OperationHandlers, CoreOperation> {
  return {
    async getHealth(_ctx, input) {
      parseInput('getHealth', input);
      return service.health();
    },
    async createEstimate(_ctx, input) {
      return service.estimate(parseInput('createEstimate', input));
    },
    async createJob(ctx, input) {
      const { kind, request, idempotency_key } = parseInput('createJob', input);
      const { accepted, replayed } = await service.createJob(ctx.tenantId, kind, request, idempotency_key);
      if (ctx.responseHeaders) {
        ctx.responseHeaders.location = API_PATHS.job(accepted.job_id);
        if (replayed) ctx.responseHeaders['idempotent-replayed'] = 'true';
      }
      return accepted;
    },
    async listJobs(ctx, input) {
      return service.listJobs(ctx.tenantId, parseInput('listJobs', input));
    },
    async getJob(ctx, input) {
      return service.getJob(ctx.tenantId, parseInput('getJob', input).job_id);
    },
    async cancelJob(ctx, input) {
      return service.cancelJob(ctx.tenantId, parseInput('cancelJob', input).job_id);
    },
    async getJobEvents(ctx, input) {
      const { job_id, after } = parseInput('getJobEvents', input);
      return service.getJobEvents(ctx.tenantId, job_id, after);
    },
    async streamJobEvents(ctx, input) {
      const { job_id, after } = parseInput('streamJobEvents', input);
      return openJobEventStream(service, ctx, job_id, after ?? 0);
    },
    async streamEvents(ctx, input) {
      const { after } = parseInput('streamEvents', input);
      return openEventFeed(service, ctx, after);
    },
    async listCatalog(_ctx, input) {
      parseInput('listCatalog', input);
      return service.listCatalog();
    },
    async listLlmModels(ctx, input) {
      return service.listLlmModels(ctx.tenantId, parseInput('listLlmModels', input));
    },
    async getMetricsSummary(ctx, input) {
      return service.metricsSummary(ctx.tenantId, parseInput('getMetricsSummary', input));
    },
  };
}
