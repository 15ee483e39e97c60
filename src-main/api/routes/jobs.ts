import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  API_PATHS,
  JOB_REQUEST_SCHEMAS,
  JOB_ROUTES,
  JobAcceptedSchema,
  JobEventsQuerySchema,
  JobEventsResponseSchema,
  JobIdParamsSchema,
  JobListQuerySchema,
  JobListResponseSchema,
  JobRecordSchema,
  JobStatusSchema,
  ProblemSchema,
} from '../../../shared';
import { ProblemError } from '../../app/problem-error';
import type { BenchdeskService } from '../../app/service-types';
import { streamJobEvents } from '../sse';

const problems = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 413: ProblemSchema, 415: ProblemSchema, 422: ProblemSchema };

export type JobRouteOptions = { service: BenchdeskService; sseHeartbeatMs: number; openStreams?: Set<() => void> };

export function registerJobRoutes(app: FastifyInstance, { service, sseHeartbeatMs, openStreams }: JobRouteOptions): void {
  for (const route of JOB_ROUTES) {
    app.post(route.path, {
      schema: {
        summary: route.successor ? `Deprecated alias of ${route.successor}` : `Submit a ${route.kind} job`,
        tags: ['jobs'],
        deprecated: route.successor !== undefined,
        body: JOB_REQUEST_SCHEMAS[route.kind],
        headers: z.object({ 'idempotency-key': z.string().optional() }).loose(),
        response: { 202: JobAcceptedSchema, ...problems },
      },
      handler: async (request, reply) => {
        if (route.successor) {
          reply.header('deprecation', 'true').header('link', `<${route.successor}>; rel="successor-version"`);
        }
        const key = request.headers['idempotency-key'];
        if (Array.isArray(key)) throw new ProblemError(400, 'bad_request', 'send one Idempotency-Key header, not several');
        const { accepted, replayed } = await service.createJob(request.tenantId, route.kind, request.body, key);
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(202).header('location', API_PATHS.job(accepted.job_id)).send(accepted);
      },
    });
  }

  app.get(API_PATHS.jobs, {
    schema: { summary: 'List jobs, newest first', tags: ['jobs'], querystring: JobListQuerySchema, response: { 200: JobListResponseSchema, ...problems } },
    handler: async (request) => service.listJobs(request.tenantId, request.query),
  });

  app.get('/v1/jobs/:id', {
    schema: { summary: 'Get one job', tags: ['jobs'], params: JobIdParamsSchema, response: { 200: JobRecordSchema, ...problems } },
    handler: async (request) => service.getJob(request.tenantId, (request.params as { id: string }).id),
  });

  app.post('/v1/jobs/:id/cancel', {
    schema: {
      summary: 'Cancel a job; it ends `cancelled` after its cleanup',
      tags: ['jobs'],
      params: JobIdParamsSchema,
      response: { 202: z.object({ job_id: z.string(), status: JobStatusSchema }), ...problems },
    },
    handler: async (request, reply) => {
      const result = await service.cancelJob(request.tenantId, (request.params as { id: string }).id);
      return reply.code(202).send(result);
    },
  });

  app.get('/v1/jobs/:id/events', {
    schema: {
      summary: 'Job events; with Accept: text/event-stream a live SSE stream (id = seq, Last-Event-ID resumes)',
      tags: ['jobs'],
      params: JobIdParamsSchema,
      querystring: JobEventsQuerySchema,
      response: { 200: JobEventsResponseSchema, ...problems },
    },
    handler: async (request, reply) => {
      const jobId = (request.params as { id: string }).id;
      const query = JobEventsQuerySchema.safeParse(request.query ?? {});
      if (!query.success) throw ProblemError.validation(query.error.issues, 'query');
      // HEAD (auto-registered with GET) answers headers only: never hold a stream open for it.
      if (request.method === 'GET' && (request.headers.accept ?? '').includes('text/event-stream')) {
        const lastEventId = request.headers['last-event-id'];
        const resumeFrom = typeof lastEventId === 'string' && /^\d+$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : undefined;
        await streamJobEvents({ request, reply, service, jobId, after: resumeFrom ?? query.data.after ?? 0, heartbeatMs: sseHeartbeatMs, ...(openStreams ? { openStreams } : {}) });
        return reply;
      }
      return service.getJobEvents(request.tenantId, jobId, query.data.after);
    },
  });
}
