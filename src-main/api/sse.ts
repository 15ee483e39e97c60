import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTerminal, type JobEvent } from '../../shared';
import type { BenchdeskService } from '../app/service-types';

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

/**
 * Live job events as Server-Sent Events: `id:` is the global seq, so a client that reconnects
 * with Last-Event-ID misses nothing. We subscribe before reading the backlog and drop duplicates
 * by seq, so no event falls between the two. The stream ends after the job's terminal event.
 */
export async function streamJobEvents(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  service: BenchdeskService;
  jobId: string;
  after: number;
  heartbeatMs: number;
  /** Open streams register their `end` here so a server shutdown can end them (see server.ts). */
  openStreams?: Set<() => void>;
}): Promise<void> {
  const { request, reply, service, jobId, heartbeatMs, openStreams } = options;
  // Fails with a 404 problem before any byte of the stream is written.
  await service.getJob(request.tenantId, jobId);

  let lastSeq = options.after;
  let backlogSent = false;
  let ended = false;
  const early: JobEvent[] = [];
  const raw = reply.raw;

  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');

  const end = () => {
    if (ended) return;
    ended = true;
    openStreams?.delete(end);
    unsubscribe();
    clearInterval(heartbeat);
    raw.end();
  };
  const send = (event: JobEvent) => {
    if (ended || event.seq <= lastSeq) return;
    lastSeq = event.seq;
    raw.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
    if (TERMINAL_EVENTS.has(event.event)) end();
  };
  const unsubscribe = service.subscribe(request.tenantId, jobId, (event) => {
    if (backlogSent) send(event);
    else early.push(event);
  });
  const heartbeat = setInterval(() => {
    if (!ended) raw.write(': heartbeat\n\n');
  }, heartbeatMs);
  raw.on('close', end);
  openStreams?.add(end);

  try {
    const backlog = await service.getJobEvents(request.tenantId, jobId, options.after);
    for (const event of backlog.events) send(event);
    backlogSent = true;
    for (const event of early.sort((a, b) => a.seq - b.seq)) send(event);
    // Resumed after the terminal event (an EventSource reconnecting): nothing more will come.
    if (!ended && isTerminal((await service.getJob(request.tenantId, jobId)).status)) {
      const all = await service.getJobEvents(request.tenantId, jobId);
      const terminal = all.events.find((e) => TERMINAL_EVENTS.has(e.event));
      // Not yet appended (status is written first): it arrives through the subscription.
      if (terminal && terminal.seq <= lastSeq) end();
    }
  } catch (err) {
    request.log.error({ err }, 'SSE backlog failed');
    end();
  }
}
