import { OllamaErrorBodySchema } from './ollama-wire';
import { OpenAiErrorMessage } from './openai-wire';
import { STREAM_LIMITS } from './stream-limits';
import {
  LlmAbortedError,
  LlmResponseTooLargeError,
  LlmServerAuthError,
  LlmServerHttpError,
  LlmServerUnreachableError,
  ModelNotFoundError,
  ToolsUnsupportedError,
  type UnreachableReason,
} from './errors';

export type FetchFn = typeof fetch;

export interface CallFetchOptions {
  baseFetch: FetchFn;
  /** The server's display URL (no credentials), for error messages. */
  serverUrl: string;
  signal?: AbortSignal | undefined;
  /** 0 or Infinity: no timeout. */
  timeoutMs: number;
  /** `deadline` bounds the whole call; `idle` bounds each wait for the next bytes (streams). */
  timeoutMode: 'deadline' | 'idle';
  /** Told just before the request is handed to fetch (its body built): a benchmark's "request sent". */
  onSend?: (() => void) | undefined;
  /** With `idle` timeouts: a bound on the whole call as well (an answer that trickles forever). */
  deadlineMs?: number | undefined;
  /** The most bytes a response body may have (default STREAM_LIMITS.responseBytes). */
  maxResponseBytes?: number | undefined;
  /** The most bytes between two line ends of a body (default STREAM_LIMITS.lineBytes): NDJSON lines, SSE lines. */
  maxLineBytes?: number | undefined;
  /** Which API answers, for the wording of an auth failure. */
  api?: 'ollama' | 'openai' | undefined;
}

/**
 * A fetch for ONE client call, handed to ollama-js. ollama-js only wires an AbortSignal into
 * streamed requests and never times out, so this wrapper adds the caller's signal and a timeout to
 * every request, and it turns failures into our typed errors before ollama-js sees them: transport
 * errors, HTTP error statuses (ollama-js would drop the headers we need to spot an auth proxy, and
 * console.log on non-JSON bodies), and aborts or timeouts while the body is read.
 * `release()` ends whatever the call left open.
 */
/** How long, and how much, release() reads of a body left unread before it aborts it. */
const DRAIN_MS = 1000;
const DRAIN_BYTES = 64 * 1024;

export function createCallFetch(options: CallFetchOptions): { fetch: FetchFn; release: () => void } {
  const { baseFetch, serverUrl, signal, timeoutMs, timeoutMode, onSend } = options;
  const maxResponseBytes = options.maxResponseBytes ?? STREAM_LIMITS.responseBytes;
  const maxLineBytes = options.maxLineBytes ?? STREAM_LIMITS.lineBytes;
  const active = new Set<() => void>();

  const callFetch: FetchFn = async (input, init) => {
    const endpoint = describeEndpoint(input, init);
    const controller = new AbortController();
    const abortWith = (reason: Error) => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    const onCallerAbort = () => abortWith(new LlmAbortedError(serverUrl, { cause: signal?.reason }));
    // ollama-js passes its own signal for streams (its iterator.abort()); honour it too.
    const innerSignal = init?.signal ?? undefined;
    const onInnerAbort = () => abortWith(new LlmAbortedError(serverUrl, { cause: innerSignal?.reason }));

    const hasTimeout = timeoutMs > 0 && Number.isFinite(timeoutMs);
    const timer = hasTimeout
      ? setTimeout(
          () =>
            abortWith(
              new LlmServerUnreachableError(
                serverUrl,
                'timeout',
                timeoutMode === 'idle'
                  ? `no data for ${timeoutMs} ms on ${endpoint}`
                  : `${endpoint} did not complete within ${timeoutMs} ms`,
              ),
            ),
          timeoutMs,
        )
      : undefined;
    const deadlineMs = options.deadlineMs;
    const deadline =
      deadlineMs !== undefined && deadlineMs > 0 && Number.isFinite(deadlineMs)
        ? setTimeout(() => abortWith(new LlmServerUnreachableError(serverUrl, 'timeout', `${endpoint} did not complete within ${Math.round(deadlineMs / 1000)} s`)), deadlineMs)
        : undefined;
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onCallerAbort);
      innerSignal?.removeEventListener('abort', onInnerAbort);
      active.delete(release);
    };
    // Set once the body streams: what release() does with a body the consumer left unread.
    let drainBody: (() => void) | null = null;
    const release = () => {
      cleanup();
      if (drainBody && !controller.signal.aborted) drainBody();
      else abortWith(new LlmAbortedError(serverUrl));
    };
    active.add(release);
    if (signal?.aborted) onCallerAbort();
    else signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (innerSignal?.aborted) onInnerAbort();
    else innerSignal?.addEventListener('abort', onInnerAbort, { once: true });

    // Reasons we set are already typed; anything else is a transport failure.
    const failure = (error: unknown): unknown =>
      controller.signal.aborted ? controller.signal.reason : transportError(error, serverUrl, endpoint);

    let response: Response;
    try {
      onSend?.();
      response = await baseFetch(input, { ...init, signal: controller.signal });
    } catch (error) {
      cleanup();
      throw failure(error);
    }

    if (!response.ok) {
      let text: string;
      try {
        text = await readCapped(response, STREAM_LIMITS.errorBodyBytes);
      } catch (error) {
        cleanup();
        throw failure(error);
      }
      cleanup();
      throw httpError({ serverUrl, endpoint, status: response.status, statusText: response.statusText, headers: response.headers, text, model: requestModel(init), api: options.api });
    }

    if (!response.body) {
      cleanup();
      return response;
    }
    const reader = response.body.getReader();
    drainBody = drainer(reader, () => abortWith(new LlmAbortedError(serverUrl)));
    const body = guardedBody(reader, {
      caps: byteCaps(maxResponseBytes, maxLineBytes),
      onData: () => {
        if (timeoutMode === 'idle') timer?.refresh();
      },
      onEnd: cleanup,
      tooLarge: (what, limit) => {
        const error = new LlmResponseTooLargeError(serverUrl, endpoint, what, limit);
        abortWith(error);
        return error;
      },
      failure,
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  // A stream left unread (done line seen, or the consumer gave up) would otherwise keep its
  // socket, timer and signal listener; the client releases everything when the call ends.
  const releaseAll = () => {
    for (const release of [...active]) release();
  };
  return { fetch: callFetch, release: releaseAll };
}

/**
 * What release() does with a stream read up to its done line: the end of the HTTP body is still in
 * flight, and reading it (briefly, a little) lets the connection go back to the pool for the next
 * call instead of being torn down; a body that goes on streaming is aborted.
 */
function drainer(reader: ReadableStreamDefaultReader<Uint8Array>, abort: () => void): () => void {
  return () => {
    let bytes = 0;
    const stop = setTimeout(abort, DRAIN_MS);
    const next = (): void => {
      reader.read().then(
        ({ done, value }) => {
          bytes += value?.byteLength ?? 0;
          if (done) clearTimeout(stop);
          else if (bytes > DRAIN_BYTES) {
            clearTimeout(stop);
            abort();
          } else next();
        },
        () => clearTimeout(stop),
      );
    };
    next();
  };
}

/** The body as the consumer reads it: each chunk counted against the caps, the idle timer refreshed, failures typed. */
function guardedBody(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  hooks: {
    caps: (chunk: Uint8Array) => { what: 'response' | 'line'; limit: number } | null;
    onData: () => void;
    onEnd: () => void;
    tooLarge: (what: 'response' | 'line', limit: number) => Error;
    failure: (error: unknown) => unknown;
  },
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(streamController) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          hooks.onEnd();
          streamController.close();
          return;
        }
        hooks.onData();
        const over = hooks.caps(value);
        if (over) {
          const error = hooks.tooLarge(over.what, over.limit);
          hooks.onEnd();
          streamController.error(error);
          return;
        }
        streamController.enqueue(value);
      } catch (error) {
        hooks.onEnd();
        streamController.error(hooks.failure(error));
      }
    },
    async cancel(reason) {
      hooks.onEnd();
      await reader.cancel(reason);
    },
  });
}

/**
 * Counts a body's bytes and the bytes since its last line end (\n or \r): a backend cannot grow
 * the process with an endless answer or a line that never ends. Returns which cap a chunk passed.
 */
function byteCaps(maxResponse: number, maxLine: number): (chunk: Uint8Array) => { what: 'response' | 'line'; limit: number } | null {
  let total = 0;
  let line = 0;
  return (chunk) => {
    total += chunk.byteLength;
    if (total > maxResponse) return { what: 'response', limit: maxResponse };
    let lastEnd = -1;
    for (let i = chunk.byteLength - 1; i >= 0; i--) {
      const byte = chunk[i];
      if (byte === 10 || byte === 13) {
        lastEnd = i;
        break;
      }
    }
    if (lastEnd < 0) line += chunk.byteLength;
    else {
      // The line that ended in this chunk (its head came before), then the one it leaves open.
      const firstEnd = chunk.findIndex((b) => b === 10 || b === 13);
      if (line + firstEnd > maxLine) return { what: 'line', limit: maxLine };
      line = chunk.byteLength - 1 - lastEnd;
    }
    return line > maxLine ? { what: 'line', limit: maxLine } : null;
  };
}

/** At most `max` bytes of a body as text (an error page can be endless); the rest is cancelled. */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    bytes += value.byteLength;
    if (bytes >= max) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(parts).subarray(0, max).toString('utf8');
}

function describeEndpoint(input: string | URL | Request, init: RequestInit | undefined): string {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  let path = href;
  try {
    path = new URL(href).pathname;
  } catch {
    // keep the raw string: only used in messages
  }
  return `${method.toUpperCase()} ${path}`;
}

/** The model a request was about, so 404/400 errors can name it. */
function requestModel(init: RequestInit | undefined): string | undefined {
  if (typeof init?.body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(init.body);
    if (parsed && typeof parsed === 'object') {
      const { model, name } = parsed as { model?: unknown; name?: unknown };
      if (typeof model === 'string') return model;
      if (typeof name === 'string') return name;
    }
  } catch {
    // not JSON: no model to name
  }
  return undefined;
}

interface HttpErrorInput {
  serverUrl: string;
  endpoint: string;
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  model: string | undefined;
  api?: 'ollama' | 'openai' | undefined;
}

const MAX_MESSAGE = 500;

/** The server's own message in an error body: Ollama's `{error}`, OpenAI's `{error:{message}}`, vLLM's `{message}`. */
function serverMessageOf(text: string): string | undefined {
  try {
    const json: unknown = JSON.parse(text);
    const ollama = OllamaErrorBodySchema.safeParse(json);
    if (ollama.success) return ollama.data.error;
    const openai = OpenAiErrorMessage.safeParse(json);
    if (openai.success) return openai.data;
  } catch {
    // not JSON: a proxy or another server answered
  }
  return undefined;
}

/** Maps an HTTP error status to the most specific typed error, keeping the server's own message. */
export function httpError(input: HttpErrorInput): Error {
  const { serverUrl, endpoint, status, statusText, headers, text, model } = input;
  const ollamaMessage = serverMessageOf(text);
  // Ollama itself has no auth (a 401/407 comes from a proxy in front of it, Vast's Caddy); an
  // OpenAI-compatible server started with --api-key wants its key.
  if (status === 401 || status === 407 || (status === 403 && input.api === 'openai')) {
    return new LlmServerAuthError(serverUrl, status, headers.get('www-authenticate'), input.api === 'openai' ? 'openai' : 'proxy');
  }
  const message = (ollamaMessage ?? text.trim()).slice(0, MAX_MESSAGE) || `HTTP ${status} ${statusText}`.trim();
  if (ollamaMessage !== undefined && status === 404 && /not found|does not exist/i.test(ollamaMessage)) {
    return new ModelNotFoundError(serverUrl, message, endpoint, model);
  }
  // Ollama: "<name> does not support tools"; vLLM without --enable-auto-tool-choice: '"auto" tool choice requires --enable-auto-tool-choice…'.
  if (ollamaMessage !== undefined && status === 400 && /does not support tools|tool choice requires|tool_choice|tools? (are|is) not supported/i.test(ollamaMessage)) {
    return new ToolsUnsupportedError(serverUrl, message, endpoint, model);
  }
  return new LlmServerHttpError(serverUrl, status, message, endpoint);
}

const REASON_BY_CODE: Record<string, UnreachableReason> = {
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  EHOSTUNREACH: 'network',
  ENETUNREACH: 'network',
};

/** undici wraps the system error as `TypeError('fetch failed', {cause})`; find its code. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = cause;
  }
  return undefined;
}

/** A fetch or body-read failure without an HTTP answer → LlmServerUnreachableError. */
export function transportError(error: unknown, serverUrl: string, endpoint: string): LlmServerUnreachableError {
  const code = errorCode(error);
  let reason: UnreachableReason = code ? (REASON_BY_CODE[code] ?? 'network') : 'network';
  if (code && /CERT|TLS|SSL/i.test(code)) reason = 'tls';
  const message = error instanceof Error ? error.message : String(error);
  if (!code && message === 'terminated') reason = 'connection_reset';
  const detail = `${endpoint}: ${code ?? message}`;
  return new LlmServerUnreachableError(serverUrl, reason, detail, { cause: error });
}
