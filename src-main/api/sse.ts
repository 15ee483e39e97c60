import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isStreamReset, type JobStreamItem } from '../../shared';

/** How much one event stream may hold for a client that does not read. */
export type EventStreamLimits = {
  /** Bytes written but not yet taken by the client (node's buffer of the response and its socket). */
  maxBufferedBytes: number;
  /** Live events waiting while the writer waits for the client to read. */
  maxQueuedEvents: number;
  /** The same, in (approximate) bytes of their frames. */
  maxQueuedBytes: number;
  /** A client that takes nothing of what waits for it for this long is dropped (it resumes with Last-Event-ID). */
  maxStallMs: number;
};

/**
 * What one stream may hold for a client that does not read (issue 34 item 5: 60 stalled readers
 * grew the server by 244 MB with 1 MiB and 10,000 events each): 256 KiB written and unread,
 * 1,000 events or 1 MiB waiting, and 30 s without taking anything; past any of them the client is
 * dropped. A thousand stalled streams therefore hold at most about 1.25 GiB, sixty 75 MiB.
 */
export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = { maxBufferedBytes: 256 * 1024, maxQueuedEvents: 1_000, maxQueuedBytes: 1024 * 1024, maxStallMs: 30_000 };

/** Sent first on every stream: how long a client waits before reconnecting (ms). */
export const SSE_RETRY_MS = 2000;

/** The open event streams of one server, for the shutdown and for anyone asking what they hold. */
export class EventStreamRegistry {
  private readonly open = new Map<ServerResponse, () => void>();
  private closedSlow = 0;

  add(response: ServerResponse, end: () => void): void {
    this.open.set(response, end);
  }

  delete(response: ServerResponse): void {
    this.open.delete(response);
  }

  countClosedForBackpressure(): void {
    this.closedSlow++;
  }

  /** Ends every open stream (server shutdown). */
  endAll(): void {
    for (const end of [...this.open.values()]) end();
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Streams closed because their client stopped reading. */
  get closedForBackpressure(): number {
    return this.closedSlow;
  }

  /** Bytes the open streams have written that their clients have not taken yet. */
  bufferedBytes(): number {
    let total = 0;
    for (const response of this.open.keys()) total += response.writableLength;
    return total;
  }
}

function frameOf(item: JobStreamItem): string {
  const data = JSON.stringify(item);
  return isStreamReset(item) ? `event: reset\nid: ${item.seq}\ndata: ${data}\n\n` : `id: ${item.seq}\ndata: ${data}\n\n`;
}

export type EventStreamWriter = {
  /** The stream holds too much for its client (called by the source when its queue is full). */
  overflow(): void;
  /** Writes the source as Server-Sent Events until it ends, the client goes, or the server closes. */
  run(source: AsyncIterable<JobStreamItem>): Promise<void>;
};

/**
 * Writes a stream of records as Server-Sent Events: `id:` is the record's global seq, so a client
 * that reconnects with Last-Event-ID misses nothing; a reset is an `event: reset` message.
 * Heartbeat comments keep proxies and idle timers from closing a quiet stream.
 *
 * Backpressure: the writer takes the next record only once the client has read what was written
 * (node's `drain`); live records wait in the source's bounded queue meanwhile. A client that stops
 * reading is disconnected when that queue, or what is written but unread, passes its bound: it
 * resumes with Last-Event-ID. So a client that never reads costs a bounded amount of memory.
 */
export function createEventStreamWriter(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  /** Aborted here when the stream ends for any reason: the source unsubscribes. */
  abort: AbortController;
  heartbeatMs: number;
  limits: EventStreamLimits;
  streams: EventStreamRegistry;
}): EventStreamWriter {
  const { reply, abort, heartbeatMs, limits, streams } = options;
  const raw = reply.raw;
  let ended = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let wakeWriter: (() => void) | null = null;

  const end = (destroy = false) => {
    if (ended) return;
    ended = true;
    streams.delete(raw);
    clearInterval(heartbeat);
    abort.abort();
    // A client that does not read would keep what is buffered (and the socket) until it timed out.
    if (destroy) raw.destroy();
    else raw.end();
    wakeWriter?.();
  };

  const overflow = () => {
    if (ended) return;
    streams.countClosedForBackpressure();
    end(true);
  };

  /** Writes; false when the client must read before more is written. */
  const write = (text: string): boolean => {
    const ok = raw.write(text);
    if (raw.writableLength > limits.maxBufferedBytes) {
      overflow();
      return true;
    }
    return ok;
  };

  /** Waits until the client has taken what was written; a client that takes nothing for maxStallMs is dropped. */
  const drained = () =>
    new Promise<void>((resolve) => {
      const stall = setTimeout(overflow, limits.maxStallMs);
      const done = () => {
        clearTimeout(stall);
        raw.off('drain', done);
        wakeWriter = null;
        resolve();
      };
      wakeWriter = done;
      raw.on('drain', done);
    });

  return {
    overflow,
    async run(source) {
      if (ended) return;
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      write(`retry: ${SSE_RETRY_MS}\n\n`);
      heartbeat = setInterval(() => {
        if (!ended) write(': heartbeat\n\n');
      }, heartbeatMs);
      raw.on('close', () => end());
      streams.add(raw, () => end());
      try {
        for await (const item of source) {
          if (ended) break;
          if (!write(frameOf(item)) && !ended) await drained();
        }
      } catch (err) {
        if (!ended) options.request.log.error({ err }, 'event stream failed');
      } finally {
        end();
      }
    },
  };
}
