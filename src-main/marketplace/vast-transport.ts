import type { z } from 'zod';
import { MarketplaceErrorBodySchema } from './vast-wire';
import {
  MarketplaceAuthError,
  MarketplaceError,
  MarketplaceHttpError,
  MarketplaceRateLimitError,
  MarketplaceResponseError,
  MarketplaceTransportError,
  abortError,
} from './errors';
import { backoffDelay, sleep } from './sleep';
import type { PacedRoute, Pacer } from './vast-pacing';

/**
 * One HTTP exchange with Vast.ai, as every operation of the client makes it: the key only in the
 * `Authorization` header, the route's pacing, bounded retries, the answer validated with a zod
 * schema, and every failure mapped to a typed MarketplaceError whose message never holds the key.
 */

/** The setting users fix when the key is rejected; named in every auth error. */
export const API_KEY_SETTING = 'VAST_API_KEY';

export type RetryOptions = {
  /** Total tries per call, first one included (default 5). */
  maxAttempts?: number;
  initialDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  /** ± fraction applied to each delay (default 0.2) so parallel jobs do not retry in lockstep. */
  jitter?: number;
};

export type RetryInfo = { endpoint: string; attempt: number; delayMs: number; reason: string };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type CallSpec<T> = {
  method: Method;
  path: string;
  /** Which pacing applies. */
  route: PacedRoute;
  /** The path is under `/api/v1` instead of the base URL's `/api/v0`. */
  v1?: boolean;
  /** Per attempt; default the transport's timeoutMs. */
  timeoutMs?: number;
  /** Tries when each meets a 429 (creates have their own bound). */
  maxAttempts?: number;
  /** Before each attempt (the search window). */
  beforeAttempt?: () => Promise<void>;
  /** For messages: the path with ids, no query. */
  endpoint?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Safe to repeat after a timeout, a network error or a 5xx (a 429 is always retried: it did nothing). */
  idempotent: boolean;
  schema: z.ZodType<T>;
  signal?: AbortSignal | undefined;
  /** Told how long the call waits for its pacing (a progress line for a long create queue). */
  onWait?: ((ms: number) => void) | undefined;
};

export type TransportOptions = {
  v0BaseUrl: string;
  v1BaseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  pacer: Pacer;
  onRetry?: ((info: RetryInfo) => void) | undefined;
};

const RETRY_STATUSES = new Set([502, 503, 504]);
const MAX_BODY_IN_MESSAGE = 300;

export class VastTransport {
  constructor(private readonly o: TransportOptions) {}

  async call<T>(spec: CallSpec<T>): Promise<T> {
    const endpoint = spec.endpoint ?? `${spec.method} ${spec.path}`;
    const url = new URL((spec.v1 ? this.o.v1BaseUrl : this.o.v0BaseUrl) + spec.path);
    const timeoutMs = spec.timeoutMs ?? this.o.timeoutMs;
    const maxAttempts = Math.max(1, spec.maxAttempts ?? this.o.retry.maxAttempts);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.o.apiKey}`, 'User-Agent': 'benchdesk' };
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const pacing = { signal: spec.signal, endpoint, ...(spec.onWait ? { onWait: spec.onWait } : {}) };
    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw abortError(endpoint, spec.signal.reason);
      const canRetry = attempt < maxAttempts;
      const answer = await this.o.pacer
        .run(spec.route, async () => {
          await spec.beforeAttempt?.();
          const exchanged = await this.#exchange(url, { method: spec.method, headers, body }, timeoutMs, spec.signal);
          // Nothing was done: hold the route for its penalty (or a Retry-After, if Vast ever sends one)
          // before the next call in the queue reserves its start.
          if (exchanged.status === 429) exchanged.penaltyMs = this.o.pacer.limited(spec.route, parseRetryAfter(exchanged.retryAfter));
          return exchanged;
        }, pacing)
        .catch((err: unknown) => {
          if (err instanceof MarketplaceError) throw err;
          if (spec.signal?.aborted) throw abortError(endpoint, spec.signal.reason);
          return this.#transportError(err, endpoint, url, timeoutMs);
        });
      if (answer instanceof MarketplaceTransportError) {
        if (spec.idempotent && canRetry) {
          await this.#backoff(endpoint, attempt, answer.code, null, spec.signal);
          continue;
        }
        throw answer;
      }
      const { status, text, retryAfter } = answer;
      if (status >= 200 && status < 300) return this.parse(text, status, endpoint, spec.schema);
      if (status === 429) {
        if (canRetry) {
          // The pacer makes the next attempt wait the penalty.
          this.#notify({ endpoint, attempt, delayMs: answer.penaltyMs, reason: 'HTTP 429' });
          continue;
        }
        throw this.httpError(status, text, endpoint, attempt);
      }
      if (spec.idempotent && RETRY_STATUSES.has(status) && canRetry) {
        await this.#backoff(endpoint, attempt, `HTTP ${status}`, retryAfter, spec.signal);
        continue;
      }
      throw this.httpError(status, text, endpoint, attempt);
    }
  }

  async #exchange(url: URL, init: { method: Method; headers: Record<string, string>; body: string | undefined }, timeoutMs: number, caller?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = caller ? AbortSignal.any([timeout, caller]) : timeout;
    const res = await this.o.fetch(url, { ...init, signal, redirect: 'error' });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text(), penaltyMs: 0 };
  }

  #notify(info: RetryInfo): void {
    try {
      this.o.onRetry?.(info);
    } catch {
      // Reporting must not break a call.
    }
  }

  async #backoff(endpoint: string, attempt: number, reason: string, retryAfter: string | null, signal?: AbortSignal): Promise<void> {
    const r = this.o.retry;
    let delayMs = backoffDelay(attempt, { initialMs: r.initialDelayMs, factor: r.factor, maxMs: r.maxDelayMs, jitter: r.jitter });
    // Vast sends no Retry-After today; if it ever does, wait at least that long (still capped).
    const hinted = parseRetryAfter(retryAfter);
    if (hinted !== null) delayMs = Math.min(Math.max(delayMs, hinted), Math.max(r.maxDelayMs, 30_000));
    this.#notify({ endpoint, attempt, delayMs, reason });
    await sleep(delayMs, signal).catch(() => {
      throw abortError(endpoint, signal?.reason);
    });
  }

  parse<T>(text: string, status: number, endpoint: string, schema: z.ZodType<T>): T {
    let json: unknown;
    try {
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new MarketplaceResponseError(`${endpoint} answered ${status} with a body that is not JSON: ${this.snippet(text)}`, status, endpoint);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`)
        .join('; ');
      throw new MarketplaceResponseError(`${endpoint} answered with an unexpected shape (${issues})`, status, endpoint);
    }
    return parsed.data;
  }

  httpError(status: number, text: string, endpoint: string, attempts: number): MarketplaceError {
    const { upstreamError, message } = this.#errorDetail(text);
    const detail = message ? `: ${message}` : '';
    const invalidKey = upstreamError === 'auth_error' || /invalid user key/i.test(message);
    if (status === 401 || status === 403 || invalidKey) {
      const what = status === 403 ? 'refused the API key for this operation' : 'rejected the API key';
      return new MarketplaceAuthError(`Vast.ai ${what} (HTTP ${status} on ${endpoint}${detail}). Check the ${API_KEY_SETTING} setting.`, status, endpoint);
    }
    if (status === 429) return new MarketplaceRateLimitError(`Vast.ai rate limit on ${endpoint}: still refused after ${attempts} attempts${detail}`, endpoint);
    const code =
      status === 404 ? 'not_found' : status === 410 && upstreamError !== 'deprecated_endpoint' ? 'offer_unavailable' : status >= 500 ? 'upstream_unavailable' : 'http_error';
    return new MarketplaceHttpError(`Vast.ai answered HTTP ${status} on ${endpoint}${detail}`, code, status, endpoint, upstreamError);
  }

  #errorDetail(text: string): { upstreamError: string | null; message: string } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { upstreamError: null, message: this.snippet(text) };
    }
    const parsed = MarketplaceErrorBodySchema.safeParse(json);
    if (!parsed.success) return { upstreamError: null, message: this.snippet(text) };
    const b = parsed.data;
    const detail = typeof b.detail === 'string' ? b.detail : undefined;
    const message = b.msg ?? b.message ?? detail ?? b.error ?? text;
    return { upstreamError: b.error ?? null, message: this.snippet(message) };
  }

  #transportError(err: unknown, endpoint: string, url: URL, timeoutMs: number): MarketplaceTransportError {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError') return new MarketplaceTransportError(`${endpoint} timed out after ${timeoutMs} ms`, 'timeout', endpoint, err);
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
    const code = cause && 'code' in cause && typeof cause.code === 'string' ? cause.code : (cause?.message ?? (err instanceof Error ? err.message : String(err)));
    return new MarketplaceTransportError(`${endpoint} failed: could not reach ${url.host} (${this.redact(code)})`, 'network', endpoint, err);
  }

  /** Trimmed, truncated, key-redacted text for messages. */
  snippet(text: string): string {
    const flat = this.redact(text).replace(/\s+/g, ' ').trim();
    return flat.length > MAX_BODY_IN_MESSAGE ? `${flat.slice(0, MAX_BODY_IN_MESSAGE)}…` : flat;
  }

  redact(text: string): string {
    return text.split(this.o.apiKey).join('***');
  }
}

/** Seconds or an HTTP date → ms; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
