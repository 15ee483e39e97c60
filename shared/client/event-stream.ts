import { createParser, type ParserCallbacks } from 'eventsource-parser';
import { isTerminal, type StreamReset } from '../jobs';
import { OPERATIONS, type CallOptions, type OperationOutput, type StreamOperationName } from '../operations';
import { BenchdeskApiError, clientError } from './errors';
import { createPushIterable } from './push-iterable';
import type { Transport } from './transport';

/** How a stream reconnects: the backoff, and how long a silent connection is trusted. */
export type StreamOptions = {
  retry: { initialMs: number; maxMs: number };
  idleTimeoutMs: number;
};

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The reset a client reports when the server it reconnected to no longer knows its position. */
function streamReset(after: number, why: string): StreamReset {
  return { reset: true, seq: 0, after: Number.isSafeInteger(after) ? after : 0, oldest_seq: null, message: `the event stream restarted: ${why}` };
}

/**
 * Feeds one connection's Server-Sent Events to `callbacks` until the server ends it; a connection
 * that sends nothing (not even a heartbeat) for `idleTimeoutMs` is aborted.
 */
async function readEvents(res: Response, connection: AbortController, idleTimeoutMs: number, callbacks: Pick<ParserCallbacks, 'onEvent' | 'onRetry'>): Promise<void> {
  const parser = createParser(callbacks);
  let idle = setTimeout(() => connection.abort(), idleTimeoutMs);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(), idleTimeoutMs);
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    clearTimeout(idle);
    reader.cancel().catch(() => undefined);
  }
}

/**
 * A live stream: reads SSE, resumes with Last-Event-ID after a dropped connection, and ends
 * when the server ends a job stream after the job's terminal event, or when `signal` aborts.
 */
export function streamOperation<O extends StreamOperationName>(
  transport: Transport,
  name: O,
  input: unknown,
  callOptions: CallOptions | undefined,
  options: StreamOptions,
): AsyncIterable<OperationOutput<O>> {
  const stop = new AbortController();
  const outer = callOptions?.signal;
  const queue = createPushIterable<OperationOutput<O>>({ signal: outer, onClose: () => stop.abort() });
  let lastEventId: string | null = null;
  let retryMs = options.retry.initialMs;
  let sawTerminal = false;

  function readOne(res: Response, connection: AbortController): Promise<void> {
    return readEvents(res, connection, options.idleTimeoutMs, {
      onEvent(message) {
        let json: unknown;
        try {
          json = JSON.parse(message.data);
        } catch {
          return; // Not a record (a future control frame): ignore.
        }
        const parsed = OPERATIONS[name].output.safeParse(json);
        if (!parsed.success) return;
        if (message.id) lastEventId = message.id;
        const item = parsed.data as OperationOutput<O>;
        if (TERMINAL_EVENTS.has((item as { event?: string }).event ?? '')) sawTerminal = true;
        queue.push(item);
      },
      onRetry(ms) {
        if (ms > 0) retryMs = ms;
      },
    });
  }

  /** After a reset the stream starts afresh: the caller's `after` no longer names a position. */
  let streamInput = input;

  async function pump(): Promise<void> {
    let delay = retryMs;
    let first = true;
    while (!stop.signal.aborted) {
      const connection = new AbortController();
      try {
        const w = transport.wire(name, streamInput, 'text/event-stream');
        if (lastEventId !== null) w.headers.set('Last-Event-ID', lastEventId);
        const res = await transport.send(w, AbortSignal.any([stop.signal, connection.signal]));
        if (!res.headers.get('Content-Type')?.includes('text/event-stream') || !res.body) {
          await res.body?.cancel().catch(() => undefined);
          throw clientError(502, 'upstream_error', `${w.what} did not answer an event stream`);
        }
        first = false;
        callOptions?.onConnection?.('open');
        try {
          await readOne(res, connection);
        } finally {
          // Ended by the server or broken: either way nothing arrives until the next connection.
          if (!stop.signal.aborted) callOptions?.onConnection?.('lost');
        }
        delay = retryMs;
        if (name === 'streamJobEvents') {
          // The server ends a job's stream once the job is over; anything else was a dropped connection.
          if (sawTerminal) break;
          const job = await transport.unary('getJob', { job_id: (input as { job_id: string }).job_id }, { signal: stop.signal });
          if (isTerminal(job.status)) break;
        }
      } catch (err) {
        if (stop.signal.aborted) break;
        const status = err instanceof BenchdeskApiError ? err.problem.status : 0;
        if (!first && err instanceof BenchdeskApiError && err.problem.code === 'unknown_event_id') {
          // Reconnected to a server that never sent our last id (another data dir, a restored
          // backup): what we hold may be stale. Say so, and start again from what it has.
          const after = Number(lastEventId ?? 0);
          queue.push(streamReset(after, err.problem.detail) as OperationOutput<O>);
          lastEventId = null;
          streamInput = { ...(input as Record<string, unknown>), after: undefined };
          continue;
        }
        // The first connection's answer is the caller's answer (404, 401…); later, a 4xx means retrying cannot help.
        if (first || (status >= 400 && status < 500 && status !== 408 && status !== 429)) {
          queue.end(err);
          return;
        }
      }
      await sleep(delay, stop.signal);
      delay = Math.min(delay * 2, options.retry.maxMs);
    }
    queue.end();
  }

  let started = false;
  return {
    [Symbol.asyncIterator]() {
      if (!started) {
        started = true;
        void pump();
      }
      return queue.iterable[Symbol.asyncIterator]();
    },
  };
}
