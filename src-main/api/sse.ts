import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Writes an already-open stream of records as Server-Sent Events: `id:` is the record's global
 * seq, so a client that reconnects with Last-Event-ID misses nothing. Heartbeat comments keep
 * proxies and idle timers from closing a quiet stream. Ends when the source ends, the client
 * goes away, or the server closes (`openStreams`).
 */
export async function writeEventStream(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  source: AsyncIterable<{ seq: number }>;
  /** Aborted here when the stream ends for any reason: the source unsubscribes. */
  abort: AbortController;
  heartbeatMs: number;
  openStreams?: Set<() => void>;
}): Promise<void> {
  const { reply, source, abort, heartbeatMs, openStreams } = options;
  const raw = reply.raw;
  let ended = false;

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
    clearInterval(heartbeat);
    abort.abort();
    raw.end();
  };
  const heartbeat = setInterval(() => {
    if (!ended) raw.write(': heartbeat\n\n');
  }, heartbeatMs);
  raw.on('close', end);
  openStreams?.add(end);

  try {
    for await (const item of source) {
      if (ended) break;
      raw.write(`id: ${item.seq}\ndata: ${JSON.stringify(item)}\n\n`);
    }
  } catch (err) {
    options.request.log.error({ err }, 'event stream failed');
  } finally {
    end();
  }
}

/** A numeric Last-Event-ID header, if the client sent one. */
export function lastEventIdOf(request: FastifyRequest): number | undefined {
  const value = request.headers['last-event-id'];
  return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
