import type { z } from 'zod';
import { CurrentUserSchema, ListInstancesResponseSchema, MarketplaceErrorBodySchema, OffersResponseSchema, RentResponseSchema, ShowInstanceResponseSchema, SuccessResponseSchema, TemplatesResponseSchema, type CurrentUser, type MarketplaceInstance, type MarketplaceOffer, type MarketplaceTemplate, type SuccessResponse } from './vast-wire';
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

export const DEFAULT_MARKETPLACE_API_URL = 'https://console.vast.ai/api/v0';
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

export type VastClientOptions = {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per attempt, covering headers and body (default 30 s, as the peer and the CLI use). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Observability hook, called before each backoff sleep. */
  onRetry?: (info: RetryInfo) => void;
};

export type CallOptions = { signal?: AbortSignal };

export type FilterOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'notin';
export type FilterScalar = string | number | boolean | null;
export type FieldFilter = Partial<Record<FilterOperator, FilterScalar | FilterScalar[]>>;

export type OfferSearchQuery = {
  minDph?: number;
  /** Absent or 0: no ceiling. */
  maxDph?: number;
  minReliability?: number;
  /** Per-GPU memory, MB. */
  minGpuRamMb?: number;
  /** All GPUs together, MB. */
  minGpuTotalRamMb?: number;
  /** Disk (GB) used for pricing: `dph_total` includes storage at this size. */
  allocatedStorageGb?: number;
  limit?: number;
  /** Default true: verified, rentable, not rented. */
  defaults?: boolean;
  extraFilters?: Record<string, FieldFilter>;
};

export const DEFAULT_OFFER_ORDER: [string, 'asc' | 'desc'][] = [
  ['dph_total', 'asc'],
  ['reliability2', 'desc'],
];

/** The `POST /bundles/` body for a query: operator objects plus the control keys. */
export function buildOfferSearchBody(q: OfferSearchQuery): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (q.defaults ?? true) {
    body.verified = { eq: true };
    body.rentable = { eq: true };
    body.rented = { eq: false };
  }
  const dph: FieldFilter = {};
  if (q.minDph !== undefined && q.minDph > 0) dph.gte = q.minDph;
  if (q.maxDph !== undefined && q.maxDph > 0) dph.lte = q.maxDph;
  if (Object.keys(dph).length > 0) body.dph_total = dph;
  // Offers carry `reliability2`; the CLI maps its `reliability` field onto it too.
  if (q.minReliability !== undefined && q.minReliability > 0) body.reliability2 = { gte: q.minReliability };
  if (q.minGpuRamMb !== undefined) body.gpu_ram = { gte: q.minGpuRamMb };
  if (q.minGpuTotalRamMb !== undefined) body.gpu_total_ram = { gte: q.minGpuTotalRamMb };
  Object.assign(body, q.extraFilters ?? {});
  body.order = DEFAULT_OFFER_ORDER;
  body.type = 'on-demand';
  if (q.allocatedStorageGb !== undefined) body.allocated_storage = q.allocatedStorageGb;
  body.limit = q.limit ?? 64;
  return body;
}

export type RentParams = {
  templateHashId: string;
  diskGb: number;
  label: string;
  env: Record<string, string>;
};

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type CallSpec<T> = {
  method: Method;
  path: string;
  /** For messages: the path with ids, no query. */
  endpoint?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Safe to repeat after a timeout, a network error or a 5xx (a 429 is always retried: it did nothing). */
  idempotent: boolean;
  schema: z.ZodType<T>;
  signal?: AbortSignal | undefined;
};

const RETRY_STATUSES = new Set([502, 503, 504]);
const MAX_BODY_IN_MESSAGE = 300;
/** An HTTP header value must be visible ASCII; anything else would throw inside fetch, echoing the key. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Typed Vast.ai REST client. Sends the key only as `Authorization: Bearer`, validates every
 * response with the shared zod schemas, retries rate limits with bounded backoff and maps failures
 * to typed MarketplaceErrors.
 */
export class VastClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #retry: Required<RetryOptions>;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(options: VastClientOptions) {
    const base = options.baseUrl.trim().replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new MarketplaceError(`marketplace base URL ${JSON.stringify(base)} is not a URL`, 'invalid_request');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new MarketplaceError(`marketplace base URL must be http(s), got ${url.protocol}`, 'invalid_request');
    }
    if (url.username || url.password) throw new MarketplaceError('marketplace base URL must not carry credentials', 'invalid_request');
    const key = options.apiKey.trim();
    if (!key) throw new MarketplaceError(`${API_KEY_SETTING} is empty`, 'auth');
    if (!HEADER_SAFE.test(key)) throw new MarketplaceError(`${API_KEY_SETTING} contains characters that cannot be sent in an HTTP header`, 'auth');
    this.baseUrl = base;
    this.#apiKey = key;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#retry = {
      maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 5),
      initialDelayMs: options.retry?.initialDelayMs ?? 250,
      factor: options.retry?.factor ?? 2,
      maxDelayMs: options.retry?.maxDelayMs ?? 8_000,
      jitter: options.retry?.jitter ?? 0.2,
    };
    this.#onRetry = options.onRetry;
  }

  /** Offers matching the query, in the server's order (cheapest first, then most reliable). */
  async searchOffers(query: OfferSearchQuery, opts: CallOptions = {}): Promise<MarketplaceOffer[]> {
    // A search changes nothing, so it is safe to repeat although it is a POST.
    const res = await this.#call({
      method: 'POST',
      path: '/bundles/',
      body: buildOfferSearchBody(query),
      idempotent: true,
      schema: OffersResponseSchema,
      signal: opts.signal,
    });
    return res.offers;
  }

  /**
   * Rents an offer. Not repeated after a timeout or 5xx (it may have created an instance); only a
   * 429, which did nothing, is retried. 404/410 mean the offer was taken: code `offer_unavailable`.
   */
  async rentOffer(offerId: number, params: RentParams, opts: CallOptions = {}): Promise<{ instanceId: number }> {
    const res = await this.#call({
      method: 'PUT',
      path: `/asks/${encodeURIComponent(String(offerId))}/`,
      body: {
        client_id: 'me',
        template_hash_id: params.templateHashId,
        disk: params.diskGb,
        label: params.label,
        env: params.env,
        cancel_unavail: true,
      },
      idempotent: false,
      schema: RentResponseSchema,
      signal: opts.signal,
    });
    return { instanceId: res.new_contract };
  }

  /** One instance, or null when Vast answers `{"instances": null}` (destroyed or unknown). */
  async showInstance(instanceId: number, opts: CallOptions = {}): Promise<MarketplaceInstance | null> {
    const res = await this.#call({
      method: 'GET',
      path: `/instances/${encodeURIComponent(String(instanceId))}/`,
      query: { owner: 'me' },
      idempotent: true,
      schema: ShowInstanceResponseSchema,
      signal: opts.signal,
    });
    return res.instances;
  }

  async listInstances(opts: CallOptions = {}): Promise<MarketplaceInstance[]> {
    const res = await this.#call({
      method: 'GET',
      path: '/instances/',
      query: { owner: 'me' },
      idempotent: true,
      schema: ListInstancesResponseSchema,
      signal: opts.signal,
    });
    return res.instances;
  }

  /** Destroys an instance (irreversible; stops billing). A 404 surfaces as code `not_found`. */
  async destroyInstance(instanceId: number, opts: CallOptions = {}): Promise<SuccessResponse> {
    return this.#call({
      method: 'DELETE',
      path: `/instances/${encodeURIComponent(String(instanceId))}/`,
      body: {},
      // Repeating a destroy is harmless: at worst the second one answers 404.
      idempotent: true,
      schema: SuccessResponseSchema,
      signal: opts.signal,
    });
  }

  /** A template (own or public) by its content hash, or null. */
  async getTemplateByHash(hashId: string, opts: CallOptions = {}): Promise<MarketplaceTemplate | null> {
    const res = await this.#call({
      method: 'GET',
      path: '/template/',
      query: { select_filters: JSON.stringify({ hash_id: { eq: hashId } }) },
      idempotent: true,
      schema: TemplatesResponseSchema,
      signal: opts.signal,
    });
    // The server filters already; matching again guards against a filter it ignored.
    return res.templates.find((t) => t.hash_id === hashId) ?? null;
  }

  /**
   * Templates matching `filters` (the marketplace's operator objects on its template fields, e.g.
   * `{name: {eq: 'Ollama'}}` or `{recommended: {eq: true}}`), own and public ones. The marketplace
   * has no text search: a caller that wants "names containing …" filters the answer itself.
   */
  async searchTemplates(filters: Record<string, FieldFilter>, opts: CallOptions = {}): Promise<MarketplaceTemplate[]> {
    const res = await this.#call({
      method: 'GET',
      path: '/template/',
      query: { select_cols: JSON.stringify(['*']), select_filters: JSON.stringify(filters) },
      idempotent: true,
      schema: TemplatesResponseSchema,
      signal: opts.signal,
    });
    return res.templates;
  }

  /** The key's account; a cheap way to check the key and show the balance. */
  async currentUser(opts: CallOptions = {}): Promise<CurrentUser> {
    return this.#call({
      method: 'GET',
      path: '/users/current/',
      idempotent: true,
      schema: CurrentUserSchema,
      signal: opts.signal,
    });
  }

  async #call<T>(spec: CallSpec<T>): Promise<T> {
    const endpoint = spec.endpoint ?? `${spec.method} ${spec.path}`;
    const url = new URL(this.baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      Accept: 'application/json',
      Authorization: `Bearer ${this.#apiKey}`,
      'User-Agent': 'benchdesk',
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }

    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw abortError(endpoint, spec.signal.reason);
      const canRetry = attempt < this.#retry.maxAttempts;
      let status: number;
      let text: string;
      let retryAfter: string | null;
      try {
        const timeout = AbortSignal.timeout(this.#timeoutMs);
        const signal = spec.signal ? AbortSignal.any([timeout, spec.signal]) : timeout;
        const res = await this.#fetch(url, { method: spec.method, headers, body, signal, redirect: 'error' });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        if (spec.signal?.aborted) throw abortError(endpoint, spec.signal.reason);
        const transport = this.#transportError(err, endpoint, url);
        if (spec.idempotent && canRetry) {
          await this.#backoff(endpoint, attempt, transport.code, null, spec.signal);
          continue;
        }
        throw transport;
      }

      if (status >= 200 && status < 300) return this.#parse(text, status, endpoint, spec.schema);
      const retryable = status === 429 || (spec.idempotent && RETRY_STATUSES.has(status));
      if (retryable && canRetry) {
        await this.#backoff(endpoint, attempt, `HTTP ${status}`, retryAfter, spec.signal);
        continue;
      }
      throw this.#httpError(status, text, endpoint, attempt);
    }
  }

  async #backoff(endpoint: string, attempt: number, reason: string, retryAfter: string | null, signal?: AbortSignal): Promise<void> {
    let delayMs = backoffDelay(attempt, {
      initialMs: this.#retry.initialDelayMs,
      factor: this.#retry.factor,
      maxMs: this.#retry.maxDelayMs,
      jitter: this.#retry.jitter,
    });
    // Vast sends no Retry-After today; if it ever does, wait at least that long (still capped).
    const hinted = parseRetryAfter(retryAfter);
    if (hinted !== null) delayMs = Math.min(Math.max(delayMs, hinted), Math.max(this.#retry.maxDelayMs, 30_000));
    this.#onRetry?.({ endpoint, attempt, delayMs, reason });
    await sleep(delayMs, signal).catch(() => {
      throw abortError(endpoint, signal?.reason);
    });
  }

  #parse<T>(text: string, status: number, endpoint: string, schema: z.ZodType<T>): T {
    let json: unknown;
    try {
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new MarketplaceResponseError(`${endpoint} answered ${status} with a body that is not JSON: ${this.#snippet(text)}`, status, endpoint);
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

  #httpError(status: number, text: string, endpoint: string, attempts: number): MarketplaceError {
    const { upstreamError, message } = this.#errorDetail(text);
    const detail = message ? `: ${message}` : '';
    const invalidKey = upstreamError === 'auth_error' || /invalid user key/i.test(message);
    if (status === 401 || status === 403 || invalidKey) {
      const what = status === 403 ? 'refused the API key for this operation' : 'rejected the API key';
      return new MarketplaceAuthError(
        `Vast.ai ${what} (HTTP ${status} on ${endpoint}${detail}). Check the ${API_KEY_SETTING} setting.`,
        status,
        endpoint,
      );
    }
    if (status === 429) {
      return new MarketplaceRateLimitError(`Vast.ai rate limit on ${endpoint}: still refused after ${attempts} attempts${detail}`, endpoint);
    }
    const code = status === 404 ? 'not_found' : status === 410 ? 'offer_unavailable' : status >= 500 ? 'upstream_unavailable' : 'http_error';
    return new MarketplaceHttpError(`Vast.ai answered HTTP ${status} on ${endpoint}${detail}`, code, status, endpoint, upstreamError);
  }

  #errorDetail(text: string): { upstreamError: string | null; message: string } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { upstreamError: null, message: this.#snippet(text) };
    }
    const parsed = MarketplaceErrorBodySchema.safeParse(json);
    if (!parsed.success) return { upstreamError: null, message: this.#snippet(text) };
    const b = parsed.data;
    const detail = typeof b.detail === 'string' ? b.detail : undefined;
    const message = b.msg ?? b.message ?? detail ?? b.error ?? text;
    return { upstreamError: b.error ?? null, message: this.#snippet(message) };
  }

  #transportError(err: unknown, endpoint: string, url: URL): MarketplaceTransportError {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError') {
      return new MarketplaceTransportError(`${endpoint} timed out after ${this.#timeoutMs} ms`, 'timeout', endpoint, err);
    }
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
    const code = cause && 'code' in cause && typeof cause.code === 'string' ? cause.code : (cause?.message ?? (err instanceof Error ? err.message : String(err)));
    return new MarketplaceTransportError(`${endpoint} failed: could not reach ${url.host} (${this.#redact(code)})`, 'network', endpoint, err);
  }

  /** Trimmed, truncated, key-redacted text for messages. */
  #snippet(text: string): string {
    const flat = this.#redact(text).replace(/\s+/g, ' ').trim();
    return flat.length > MAX_BODY_IN_MESSAGE ? `${flat.slice(0, MAX_BODY_IN_MESSAGE)}…` : flat;
  }

  #redact(text: string): string {
    return text.split(this.#apiKey).join('***');
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

/** The client's operations as a type, so workflows can take a stub or a wrapped client. */
export type VastApi = Pick<
  VastClient,
  'searchOffers' | 'rentOffer' | 'showInstance' | 'listInstances' | 'destroyInstance' | 'getTemplateByHash' | 'searchTemplates' | 'currentUser'
>;
