import { createParser } from 'eventsource-parser';
import {
  API_PATHS,
  BenchdeskApiError,
  JobEventSchema,
  ProblemSchema,
  isTerminal,
  jobCreatePath,
  type BenchdeskApi,
  type IpcMethod,
  type IpcRequest,
  type IpcResponse,
  type JobEvent,
  type ProblemCode,
} from '../../shared';
import { clientError } from './problems';
import { checkRequest, checkResponse } from './validate';

/**
 * Browser-mode `window.api`: the same operations as the IPC bridge, over the local /v1 API of the
 * page's own origin (dev proxy, or the server's /ui/). Errors surface as BenchdeskApiError with the
 * server's problem body, exactly as over IPC.
 */
export interface HttpBridgeOptions {
  /** Token for `Authorization: Bearer`; null when auth is disabled or not yet known. */
  token: string | null;
  /** Prefix for API paths; '' = same origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Reconnect backoff for event streams. */
  retry?: { initialMs: number; maxMs: number };
  /** Reconnect an event stream that sent nothing (not even a heartbeat) for this long. */
  idleTimeoutMs?: number;
}

type Query = Record<string, string | number | boolean | null | undefined>;
type JobEventListener = (event: JobEvent) => void;

interface Subscription {
  readonly controller: AbortController;
  lastEventId: string | null;
  retryMs: number;
}

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

function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof DOMException && err.name === 'AbortError');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Turns a non-2xx answer into the server's problem, or a synthesised one if the body isn't one. */
async function problemFrom(res: Response, what: string): Promise<BenchdeskApiError> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = ProblemSchema.safeParse(JSON.parse(text));
    if (parsed.success) return new BenchdeskApiError(parsed.data);
  } catch {
    // Not JSON: fall through to a synthesised problem.
  }
  const code = STATUS_CODES[res.status] ?? (res.status >= 500 ? 'upstream_error' : 'bad_request');
  const snippet = text.trim().slice(0, 200);
  return clientError(res.status, code, `${what} answered ${res.status}${snippet ? `: ${snippet}` : ''}`);
}

export function createHttpBridge(options: HttpBridgeOptions): BenchdeskApi {
  const baseUrl = options.baseUrl ?? '';
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retry = options.retry ?? { initialMs: 1_000, maxMs: 30_000 };
  const idleTimeoutMs = options.idleTimeoutMs ?? 75_000;
  const subscriptions = new Map<string, Subscription>();
  const listeners = new Set<JobEventListener>();

  function headers(extra?: Record<string, string>): Headers {
    const h = new Headers(extra);
    if (!h.has('Accept')) h.set('Accept', 'application/json');
    if (options.token) h.set('Authorization', `Bearer ${options.token}`);
    return h;
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const h = headers(init.headers);
    if (init.body !== undefined) h.set('Content-Type', 'application/json');
    const what = `${method} ${path.split('?')[0]}`;
    let res: Response;
    try {
      res = await doFetch(`${baseUrl}${path}`, {
        method,
        headers: h,
        body: init.body === undefined ? null : JSON.stringify(init.body),
        cache: 'no-store',
        credentials: 'omit',
        signal: init.signal ?? null,
      });
    } catch (err) {
      if (init.signal && isAbort(err, init.signal)) throw err;
      throw clientError(503, 'upstream_unreachable', `cannot reach the benchdesk API (${what}): ${describe(err)}`);
    }
    if (!res.ok) throw await problemFrom(res, what);
    return res;
  }

  async function call<M extends IpcMethod>(
    method: M,
    verb: 'GET' | 'POST',
    path: string,
    init?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<IpcResponse<M>> {
    const res = await send(verb, path, init);
    const what = `${verb} ${path.split('?')[0]}`;
    let data: unknown;
    try {
      data = await res.json();
    } catch (err) {
      throw clientError(502, 'upstream_error', `${what} did not answer JSON: ${describe(err)}`);
    }
    return checkResponse(method, data, what);
  }

  function emit(event: JobEvent): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        // One faulty listener must not starve the others; still surface it as an uncaught error.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  async function openStream(jobId: string, sub: Subscription, signal: AbortSignal): Promise<Response> {
    const extra: Record<string, string> = { Accept: 'text/event-stream' };
    if (sub.lastEventId !== null) extra['Last-Event-ID'] = sub.lastEventId;
    const res = await send('GET', API_PATHS.jobEvents(jobId), { headers: extra, signal });
    if (!res.headers.get('Content-Type')?.includes('text/event-stream') || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw clientError(502, 'upstream_error', `GET ${API_PATHS.jobEvents(jobId)} did not answer an event stream`);
    }
    return res;
  }

  /** Reads one connection until it ends; restarts the idle watchdog on every chunk. */
  async function readStream(res: Response, sub: Subscription, connection: AbortController): Promise<void> {
    const parser = createParser({
      onEvent(message) {
        let json: unknown;
        try {
          json = JSON.parse(message.data);
        } catch {
          return; // Not an event record (e.g. a future control frame): ignore.
        }
        const parsed = JobEventSchema.safeParse(json);
        if (!parsed.success) return;
        sub.lastEventId = message.id ?? String(parsed.data.seq);
        emit(parsed.data);
      },
      onRetry(ms) {
        if (ms > 0) sub.retryMs = ms;
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

  /** Keeps one job's stream alive: resumes with Last-Event-ID until the job is over or unsubscribed. */
  async function pump(jobId: string, sub: Subscription, first: Response, firstConnection: AbortController): Promise<void> {
    const { signal } = sub.controller;
    let res: Response | null = first;
    let connection = firstConnection;
    let delay = sub.retryMs;
    while (!signal.aborted) {
      try {
        if (!res) {
          connection = new AbortController();
          res = await openStream(jobId, sub, AbortSignal.any([signal, connection.signal]));
        }
        await readStream(res, sub, connection);
        delay = sub.retryMs;
        // The server ends the stream when the job is over; anything else is a dropped connection.
        const job = await call('getJob', 'GET', API_PATHS.job(jobId));
        if (isTerminal(job.status)) break;
      } catch (err) {
        if (signal.aborted) return;
        const stop =
          err instanceof BenchdeskApiError &&
          err.problem.status >= 400 &&
          err.problem.status < 500 &&
          err.problem.status !== 408 &&
          err.problem.status !== 429;
        if (stop) break; // Gone, or no longer authorised: retrying cannot help.
      }
      res = null;
      await sleep(delay, signal);
      delay = Math.min(delay * 2, retry.maxMs);
    }
    if (subscriptions.get(jobId) === sub) subscriptions.delete(jobId);
  }

  const api: { [M in IpcMethod]: (req: IpcRequest<M>) => Promise<IpcResponse<M>> } = {
    async getHealth(req) {
      checkRequest('getHealth', req);
      return call('getHealth', 'GET', API_PATHS.health);
    },
    async createEstimate(req) {
      checkRequest('createEstimate', req);
      // Send what the caller wrote, not zod's output: the server validates and applies defaults.
      return call('createEstimate', 'POST', API_PATHS.estimates, { body: req });
    },
    async createJob(req) {
      const { kind, request, idempotency_key } = checkRequest('createJob', req);
      return call('createJob', 'POST', jobCreatePath(kind), {
        body: request,
        headers: idempotency_key ? { 'Idempotency-Key': idempotency_key } : {},
      });
    },
    async listJobs(req) {
      const q = checkRequest('listJobs', req);
      return call('listJobs', 'GET', withQuery(API_PATHS.jobs, { status: q.status, kind: q.kind, limit: q.limit, cursor: q.cursor }));
    },
    async getJob(req) {
      const { job_id } = checkRequest('getJob', req);
      return call('getJob', 'GET', API_PATHS.job(job_id));
    },
    async cancelJob(req) {
      const { job_id } = checkRequest('cancelJob', req);
      return call('cancelJob', 'POST', API_PATHS.jobCancel(job_id));
    },
    async getJobEvents(req) {
      const { job_id, after } = checkRequest('getJobEvents', req);
      return call('getJobEvents', 'GET', withQuery(API_PATHS.jobEvents(job_id), { after }));
    },
    async subscribeJobEvents(req) {
      const { job_id } = checkRequest('subscribeJobEvents', req);
      if (job_id === null) {
        throw clientError(
          400,
          'bad_request',
          'the HTTP API streams events per job: subscribe with a job_id (all-jobs streams are IPC only)',
        );
      }
      if (subscriptions.has(job_id)) return { subscribed: true };
      const sub: Subscription = { controller: new AbortController(), lastEventId: null, retryMs: retry.initialMs };
      subscriptions.set(job_id, sub);
      const connection = new AbortController();
      try {
        // Await the first connection so an unknown job or a bad token fails the call itself.
        const first = await openStream(job_id, sub, AbortSignal.any([sub.controller.signal, connection.signal]));
        void pump(job_id, sub, first, connection);
      } catch (err) {
        subscriptions.delete(job_id);
        sub.controller.abort();
        throw err;
      }
      return { subscribed: true };
    },
    async unsubscribeJobEvents(req) {
      const { job_id } = checkRequest('unsubscribeJobEvents', req);
      // null names the all-jobs stream, which HTTP never opens (see subscribeJobEvents).
      if (job_id !== null) {
        subscriptions.get(job_id)?.controller.abort();
        subscriptions.delete(job_id);
      }
      return { subscribed: false };
    },
    async listCatalog(req) {
      checkRequest('listCatalog', req);
      return call('listCatalog', 'GET', API_PATHS.catalog);
    },
    async listLlmModels(req) {
      const q = checkRequest('listLlmModels', req);
      return call('listLlmModels', 'GET', withQuery(API_PATHS.llmModels, { backend_url: q.backend_url, backend_type: q.backend_type }));
    },
    async getMetricsSummary(req) {
      const q = checkRequest('getMetricsSummary', req);
      return call('getMetricsSummary', 'GET', withQuery(API_PATHS.metricsSummary, { job_id: q.job_id }));
    },
  };

  return {
    ...api,
    onJobEvent(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    transport: 'http',
  };
}
