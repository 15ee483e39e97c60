import {
  OPERATIONS,
  REST_BODY,
  operationPath,
  pathFields,
  type CallOptions,
  type OperationDef,
  type OperationName,
  type OperationOutput,
  type UnaryOperationName,
} from '../operations';
import { ProblemSchema, zodIssuesToValidation, type ProblemCode } from '../problems';
import { BenchdeskApiError, clientError } from './errors';

/**
 * One request of the typed HTTP client: an operation's input mapped onto the wire as the table
 * says, sent, and a unary answer checked against the operation's output schema.
 */

/** Where and as whom the client calls (the HttpClientOptions of http-client.ts). */
export type TransportOptions = {
  baseUrl: string;
  token?: string | null | undefined;
  tenant?: string | undefined;
  fetch?: typeof fetch;
};

export type Wire = { url: string; method: string; headers: Headers; body: string | null; what: string };

export type Transport = {
  /** Maps an operation's input onto path, query, headers and body. */
  wire(name: OperationName, rawInput: unknown, accept: string): Wire;
  /** Sends it; a non-2xx answer rejects with its problem. */
  send(w: Wire, signal: AbortSignal | undefined): Promise<Response>;
  unary<O extends UnaryOperationName>(name: O, input: unknown, callOptions?: CallOptions): Promise<OperationOutput<O>>;
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

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError');
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

export function createTransport(options: TransportOptions): Transport {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
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

  return { wire, send, unary };
}
