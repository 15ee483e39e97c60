/**
 * Typed failures of the llmserver layer, so the API, the engine and the agent can react to each
 * without parsing messages: bad input (422), unreachable server (502), proxy auth, Ollama's own
 * HTTP errors (message kept verbatim), missing tool support (agent falls back), broken streams.
 */

/** Base class: every error this module throws on purpose. */
export class LlmError extends Error {
  override name = 'LlmError';
  /** Stable machine-readable code, e.g. for a job's `error_code`. */
  readonly code: string = 'llmserver_error';
}

/** The backend URL given by the user is unusable. The API answers 422. */
export class InvalidBackendUrlError extends LlmError {
  override name = 'InvalidBackendUrlError';
  override readonly code: string = 'invalid_backend_url';
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid backend_url ${JSON.stringify(input)}: ${reason}`);
  }
}

/** `backend_type` is not one we know. The API answers 422. */
export class UnknownBackendTypeError extends LlmError {
  override name = 'UnknownBackendTypeError';
  override readonly code: string = 'unknown_backend_type';
  constructor(
    readonly input: string,
    readonly known: readonly string[],
  ) {
    super(`unknown backend_type ${JSON.stringify(input)}; known types: ${known.join(', ')}`);
  }
}

export type UnreachableReason = 'connection_refused' | 'dns' | 'timeout' | 'connection_reset' | 'tls' | 'network';

/** No HTTP answer: refused, DNS failure, timeout, dropped connection. The API answers 502. */
export class LlmServerUnreachableError extends LlmError {
  override name = 'LlmServerUnreachableError';
  override readonly code: string = 'llmserver_unreachable';
  constructor(
    readonly url: string,
    readonly reason: UnreachableReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`llmserver at ${url} is unreachable (${reason.replaceAll('_', ' ')}): ${detail}`, options);
  }
}

/** An HTTP error status from the server; `serverMessage` is Ollama's own `error` text. */
export class LlmServerHttpError extends LlmError {
  override name = 'LlmServerHttpError';
  override readonly code: string = 'llmserver_http_error';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly serverMessage: string,
    readonly endpoint: string,
  ) {
    super(`${serverMessage} (HTTP ${status} from llmserver ${url} ${endpoint})`);
  }
}

/** 404 "model 'x' not found": the model is not on the server (pull it first). */
export class ModelNotFoundError extends LlmServerHttpError {
  override name = 'ModelNotFoundError';
  override readonly code: string = 'model_not_found';
  constructor(
    url: string,
    serverMessage: string,
    endpoint: string,
    readonly model: string | undefined,
  ) {
    super(url, 404, serverMessage, endpoint);
  }
}

/** 400 "<model> does not support tools": the agent should fall back to a single prompt. */
export class ToolsUnsupportedError extends LlmServerHttpError {
  override name = 'ToolsUnsupportedError';
  override readonly code: string = 'tools_unsupported';
  constructor(
    url: string,
    serverMessage: string,
    endpoint: string,
    readonly model: string | undefined,
  ) {
    super(url, 400, serverMessage, endpoint);
  }
}

/**
 * A 401 that is not Ollama speaking: typically the Vast "Instance Portal" Caddy proxy, which wants
 * `Authorization: Bearer <OPEN_BUTTON_TOKEN>` and answers with a non-JSON body.
 */
export class LlmServerAuthError extends LlmError {
  override name = 'LlmServerAuthError';
  override readonly code: string = 'llmserver_auth';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly challenge: string | null,
    /** `proxy`: an auth proxy in front of Ollama; `openai`: an OpenAI-compatible server started with an API key. */
    readonly who: 'proxy' | 'openai' = 'proxy',
  ) {
    super(
      who === 'openai'
        ? `the OpenAI-compatible server at ${url} refused the request (HTTP ${status} Unauthorized): it wants an API key; set backend_api_key (CLI: BENCHDESK_BACKEND_API_KEY)`
        : `llmserver at ${url} refused our credentials (HTTP ${status}${challenge ? `, ${challenge}` : ''}); ` +
            'an auth proxy sits in front of Ollama: send its token as Authorization: Bearer <token>',
    );
  }
}

/** The answer is not the shape Ollama documents (wrong server, proxy page, broken JSON). */
export class LlmResponseShapeError extends LlmError {
  override name = 'LlmResponseShapeError';
  override readonly code: string = 'llmserver_bad_response';
  constructor(
    readonly url: string,
    readonly endpoint: string,
    detail: string,
  ) {
    super(`llmserver at ${url} returned an unexpected ${endpoint} payload: ${detail}`);
  }
}

/** A streamed answer failed: an in-stream `{"error"}` line, or the body ended without done/success. */
export class LlmStreamError extends LlmError {
  override name = 'LlmStreamError';
  override readonly code: string = 'llmserver_stream_error';
  constructor(
    readonly url: string,
    readonly endpoint: string,
    readonly kind: 'error_line' | 'incomplete',
    readonly serverMessage: string,
  ) {
    super(
      kind === 'error_line'
        ? `${serverMessage} (in the ${endpoint} stream from llmserver ${url})`
        : `the ${endpoint} stream from llmserver ${url} ended before completion`,
    );
  }
}

/** An answer passed a byte cap (see stream-limits.ts): an endless stream, or a line that never ends. */
export class LlmResponseTooLargeError extends LlmError {
  override name = 'LlmResponseTooLargeError';
  override readonly code: string = 'llmserver_response_too_large';
  constructor(
    readonly url: string,
    readonly endpoint: string,
    readonly what: 'response' | 'line',
    readonly limit: number,
  ) {
    super(
      what === 'line'
        ? `llmserver at ${url} sent a line longer than ${Math.round(limit / 1024)} KiB on ${endpoint}: stopped reading (not the API's line-per-chunk stream)`
        : `llmserver at ${url} sent more than ${Math.round(limit / (1024 * 1024))} MiB on ${endpoint}: stopped reading`,
    );
  }
}

/** The model did not show up in /api/ps within the warm-up budget. */
export class WarmupTimeoutError extends LlmError {
  override name = 'WarmupTimeoutError';
  override readonly code: string = 'warmup_timeout';
  constructor(
    readonly url: string,
    readonly model: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for model ${model} to load on llmserver ${url}`);
  }
}

/**
 * The caller's AbortSignal fired. Named 'AbortError' like the platform's, so generic
 * cancellation checks (`err.name === 'AbortError'`) keep working.
 */
export class LlmAbortedError extends LlmError {
  override name = 'AbortError';
  override readonly code: string = 'cancelled';
  constructor(readonly url: string, options?: { cause?: unknown }) {
    super(`request to llmserver ${url} was cancelled`, options);
  }
}
