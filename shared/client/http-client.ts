import { createParser } from 'eventsource-parser';
import { isTerminal, type StreamReset } from '../jobs';
import {
  OPERATIONS,
  REST_BODY,
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  operationPath,
  pathFields,
  type BenchdeskClient,
  type CallOptions,
  type OperationDef,
  type OperationName,
  type OperationOutput,
  type StreamOperationName,
  type UnaryOperationName,
} from '../operations';
import { ProblemSchema, zodIssuesToValidation, type ProblemCode } from '../problems';
import { BenchdeskApiError, clientError } from './errors';
import { createPushIterable } from './push-iterable';

/**
 * The typed client over the local /v1 HTTP API. Web-standard globals only (fetch, AbortSignal,
 * TextDecoder), so the renderer's browser mode, the CLI and scripts all use this one file.
 */
export type HttpClientOptions = {
  /** e.g. `http://127.0.0.1:8080`; '' = the page's own origin. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; null/undefined when auth is disabled. */
  token?: string | null | undefined;
  /** Sent as `X-Tenant-ID` when set. */
  tenant?: string | undefined;
  fetch?: typeof fetch;
  /** Reconnect backoff for streams. */
  retry?: { initialMs: number; maxMs: number };
  /** Reconnect a stream that sent nothing (not even a heartbeat) for this long. */
  idleTimeoutMs?: number;
};

const STATUS_CODES: Record<number, ProblemCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'idempotency_in_flight',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
};

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError');
}

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

/** A non-2xx answer: the server's problem body, or a synthesised one if it isn't one. */
async function problemFrom(res: Response, what: string): Promise<BenchdeskApiError> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = ProblemSchema.safeParse(JSON.parse(text));
    if (parsed.success) return new BenchdeskApiError(parsed.data);
  } catch {
    // Not JSON: synthesise below.
  }
  const code = STATUS_CODES[res.status] ?? (res.status >= 500 ? 'upstream_error' : 'bad_request');
  const snippet = text.trim().slice(0, 200);
  return clientError(res.status, code, `${what} answered ${res.status}${snippet ? `: ${snippet}` : ''}`);
}

function checkOutput<O extends OperationName>(name: O, data: unknown, what: string): OperationOutput<O> {
  const parsed = OPERATIONS[name].output.safeParse(data);
  if (!parsed.success) {
    const errors = zodIssuesToValidation(parsed.error.issues);
    const summary = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
    throw clientError(502, 'upstream_error', `unexpected response from ${what}: ${summary}`, { errors });
  }
  return parsed.data as OperationOutput<O>;
}

/** The reset a client reports when the server it reconnected to no longer knows its position. */
function streamReset(after: number, why: string): StreamReset {
  return { reset: true, seq: 0, after: Number.isSafeInteger(after) ? after : 0, oldest_seq: null, message: `the event stream restarted: ${why}` };
}

type Wire = { url: string; method: string; headers: Headers; body: string | null; what: string };

export function createHttpClient(options: HttpClientOptions): BenchdeskClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retry = options.retry ?? { initialMs: 1_000, maxMs: 30_000 };
  const idleTimeoutMs = options.idleTimeoutMs ?? 75_000;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  /** Maps an operation's input onto path, query, headers and body, as the table says. */
  function wire(name: OperationName, rawInput: unknown, accept: string): Wire {
    const op: OperationDef = OPERATIONS[name];
    const input = (rawInput ?? {}) as Record<string, unknown>;
    const path = operationPath(name, input);
    const params = new URLSearchParams();
    for (const field of op.query ?? []) {
      const value = input[field];
      if (value !== undefined && value !== null) params.set(field, String(value));
    }
    const headers = new Headers({ Accept: accept });
    if (options.token) headers.set('Authorization', `Bearer ${options.token}`);
    if (options.tenant) headers.set('X-Tenant-ID', options.tenant);
    for (const [field, header] of Object.entries(op.headers ?? {})) {
      const value = input[field];
      if (value !== undefined && value !== null) headers.set(header, String(value));
    }
    let body: string | null = null;
    if (op.body === REST_BODY) {
      // The fields the path does not carry (e.g. a release's `force`).
      const inPath = new Set(pathFields(name));
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(Object.fromEntries(Object.entries(input).filter(([field, value]) => !inPath.has(field) && value !== undefined)));
    } else if (op.body !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(op.body === '*' ? rawInput ?? {} : input[op.body]);
    }
    const qs = params.toString();
    return { url: `${baseUrl}${path}${qs ? `?${qs}` : ''}`, method: op.method, headers, body, what: `${op.method} ${path}` };
  }

  async function send(w: Wire, signal: AbortSignal | undefined): Promise<Response> {
    let res: Response;
    try {
      res = await doFetch(w.url, { method: w.method, headers: w.headers, body: w.body, cache: 'no-store', credentials: 'omit', signal: signal ?? null });
    } catch (err) {
      if (isAbort(err, signal)) throw err;
      throw clientError(503, 'upstream_unreachable', `cannot reach the benchdesk API at ${baseUrl || 'this origin'} (${w.what}): ${describe(err)}`);
    }
    if (!res.ok) throw await problemFrom(res, w.what);
    return res;
  }

  async function unary<O extends UnaryOperationName>(name: O, input: unknown, callOptions?: CallOptions): Promise<OperationOutput<O>> {
    const w = wire(name, input, 'application/json');
    const res = await send(w, callOptions?.signal);
    if (res.status === 204) {
      await res.body?.cancel().catch(() => undefined);
      return checkOutput(name, undefined, w.what);
    }
    let data: unknown;
    try {
      // A document answer (a report as Markdown or CSV) is its text.
      const type = res.headers.get('content-type') ?? '';
      data = type.startsWith('text/') ? await res.text() : await res.json();
    } catch (err) {
      throw clientError(502, 'upstream_error', `${w.what} did not answer JSON: ${describe(err)}`);
    }
    return checkOutput(name, data, w.what);
  }

  /**
   * A live stream: reads SSE, resumes with Last-Event-ID after a dropped connection, and ends
   * when the server ends a job stream after the job's terminal event, or when `signal` aborts.
   */
  function stream<O extends StreamOperationName>(name: O, input: unknown, callOptions?: CallOptions): AsyncIterable<OperationOutput<O>> {
    const stop = new AbortController();
    const outer = callOptions?.signal;
    const queue = createPushIterable<OperationOutput<O>>({ signal: outer, onClose: () => stop.abort() });
    let lastEventId: string | null = null;
    let retryMs = retry.initialMs;
    let sawTerminal = false;

    async function readOne(res: Response, connection: AbortController): Promise<void> {
      const parser = createParser({
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

    /** After a reset the stream starts afresh: the caller's `after` no longer names a position. */
    let streamInput = input;

    async function pump(): Promise<void> {
      let delay = retryMs;
      let first = true;
      while (!stop.signal.aborted) {
        const connection = new AbortController();
        try {
          const w = wire(name, streamInput, 'text/event-stream');
          if (lastEventId !== null) w.headers.set('Last-Event-ID', lastEventId);
          const res = await send(w, AbortSignal.any([stop.signal, connection.signal]));
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
            const job = await unary('getJob', { job_id: (input as { job_id: string }).job_id }, { signal: stop.signal });
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
        delay = Math.min(delay * 2, retry.maxMs);
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

  const client: Record<string, unknown> = {};
  for (const name of UNARY_OPERATION_NAMES) client[name] = (input: unknown, o?: CallOptions) => unary(name, input, o);
  for (const name of STREAM_OPERATION_NAMES) client[name] = (input: unknown, o?: CallOptions) => stream(name, input, o);
  return client as BenchdeskClient;
}
