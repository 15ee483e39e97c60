import { API_PATHS } from '../../../shared';
import type { BenchdeskService } from '../../app/service-types';
import { parseInput } from '../parse-input';
import { assertKnownPosition, openEventFeed, openJobEventStream } from '../streams';
import type { OperationHandlers } from '../types';

type CoreOperation =
  | 'getHealth'
  | 'createEstimate'
  | 'createJob'
  | 'listJobs'
  | 'getJob'
  | 'cancelJob'
  | 'getJobEvents'
  | 'getJobRequests'
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
      const { job_id, after, last_event_id } = parseInput('getJobEvents', input);
      const from = last_event_id ?? after;
      const events = await service.getJobEvents(ctx.tenantId, job_id, from);
      // After the job's own check: another tenant's job is a 404 whatever the position.
      if (from !== undefined) assertKnownPosition(service, from, last_event_id !== undefined ? 'Last-Event-ID' : 'after');
      return events;
    },
    async getJobRequests(ctx, input) {
      const { job_id, format } = parseInput('getJobRequests', input);
      const text = await service.getJobRequests(ctx.tenantId, job_id, format);
      // Over HTTP the JSONL or CSV is the body itself, with its media type.
      if (ctx.responseHeaders) {
        ctx.responseHeaders['content-type'] = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
        ctx.responseHeaders['content-disposition'] = `attachment; filename="${job_id}-requests.${format}"`;
      }
      return text;
    },
    async streamJobEvents(ctx, input) {
      return openJobEventStream(service, ctx, parseInput('streamJobEvents', input));
    },
    async streamEvents(ctx, input) {
      return openEventFeed(service, ctx, parseInput('streamEvents', input) ?? {});
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
