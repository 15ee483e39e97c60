import type { z } from 'zod';
import {
  CurrentUserSchema,
  InstancesPageSchema,
  MarketplaceErrorBodySchema,
  MarketplaceInstanceSchema,
  MarketplaceOfferSchema,
  OffersResponseSchema,
  RentResponseSchema,
  ShowInstanceResponseSchema,
  SuccessResponseSchema,
  TemplatesResponseSchema,
  type CurrentUser,
  type InstancesPage,
  type MarketplaceInstance,
  type MarketplaceOffer,
  type MarketplaceTemplate,
  type SuccessResponse,
} from './vast-wire';
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
  /** Per attempt, covering headers and body (default 30 s). */
  timeoutMs?: number;
  /** Per attempt of an instance creation, which is slow on Vast's side (default 120 s, as the official CLI allows). */
  createTimeoutMs?: number;
  /**
   * After a 429 on instance creation, the next create waits at least this long (default 4.5 s: Vast's
   * documented create interval; its 429s carry no Retry-After).
   */
  createRateLimitDelayMs?: number;
  /** Create attempts when each meets a 429, first one included (default 3). */
  createMaxAttempts?: number;
  /** Offer searches allowed in any 60 s (default 9: Vast allows about 10 a minute per IP). */
  searchesPerMinute?: number;
  retry?: RetryOptions;
  /** Observability hook, called before each backoff sleep. */
  onRetry?: (info: RetryInfo) => void;
  /** Told about what the client skipped or worked around (a malformed offer or instance row). */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
};

export type CallOptions = { signal?: AbortSignal };

export type SearchOptions = CallOptions & {
  /** Reuse an identical search answered at most this long ago (estimates; never when renting). */
  maxAgeMs?: number;
  /** Fail at once (code `rate_limited`) instead of waiting longer than this for a search slot. */
  maxWaitMs?: number;
};

export type ListOptions = CallOptions & {
  /** Only instances with one of these labels (`select_filters` on `label`). */
  labels?: readonly string[];
};

export const DEFAULT_CREATE_TIMEOUT_MS = 120_000;
export const DEFAULT_CREATE_RATE_LIMIT_DELAY_MS = 4_500;
export const DEFAULT_SEARCHES_PER_MINUTE = 9;
/** Rows per page of the v1 instance list (its maximum). */
export const INSTANCE_PAGE_SIZE = 25;
/** A listing longer than this many pages (10,000 instances) is a server that keeps paging: stop. */
const MAX_INSTANCE_PAGES = 400;
const SEARCH_WINDOW_MS = 60_000;
const SEARCH_CACHE_ENTRIES = 32;

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
  /** The disk the rent will ask for (GB): hosts with less free disk cannot take it. */
  minDiskGb?: number;
  /** Directly reachable ports the host must offer (default 1: Ollama's port must map). */
  minDirectPorts?: number;
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
    // The official CLI's defaults include this one too: external offers are not Vast-managed hosts.
    body.external = { eq: false };
  }
  // Without a direct port the `-p 11434` mapping never appears, however long one waits (reference §A.10).
  body.direct_port_count = { gte: q.minDirectPorts ?? 1 };
  if (q.minDiskGb !== undefined) body.disk_space = { gte: q.minDiskGb };
  const dph: FieldFilter = {};
  if (q.minDph !== undefined && q.minDph > 0) dph.gte = q.minDph;
  if (q.maxDph !== undefined && q.maxDph > 0) dph.lte = q.maxDph;
  if (Object.keys(dph).length > 0) body.dph_total = dph;
  // `reliability` is the documented filter name (the CLI has sent it since 2024); offers also carry reliability2.
  if (q.minReliability !== undefined && q.minReliability > 0) body.reliability = { gte: q.minReliability };
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
  /** The path is under `/api/v1` instead of the base URL's `/api/v0`. */
  v1?: boolean;
  /** Per attempt; default the client's timeoutMs. */
  timeoutMs?: number;
  /** Instance creation: paced after a 429 (createRateLimitDelayMs) with its own attempt bound. */
  create?: boolean;
  /** Before each attempt (the search limiter). */
  beforeAttempt?: () => Promise<void>;
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
  /** Where the v1 endpoints live: the base URL's last segment (`v0`) replaced by `v1`. */
  readonly v1BaseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #createTimeoutMs: number;
  readonly #createRateLimitDelayMs: number;
  readonly #createMaxAttempts: number;
  readonly #searchesPerMinute: number;
  readonly #retry: Required<RetryOptions>;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;
  readonly #onWarning: ((message: string, fields: Record<string, unknown>) => void) | undefined;
  /** No create before this instant (ms): set by a 429 on a create. */
  #createNotBefore = 0;
  /** When the searches of the last minute were sent (ms). */
  readonly #searches: number[] = [];
  readonly #searchCache = new Map<string, { at: number; offers: MarketplaceOffer[] }>();

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
    this.v1BaseUrl = base.replace(/\/[^/]*$/, '/v1');
    this.#apiKey = key;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#createTimeoutMs = options.createTimeoutMs ?? DEFAULT_CREATE_TIMEOUT_MS;
    this.#createRateLimitDelayMs = options.createRateLimitDelayMs ?? DEFAULT_CREATE_RATE_LIMIT_DELAY_MS;
    this.#createMaxAttempts = Math.max(1, options.createMaxAttempts ?? 3);
    this.#searchesPerMinute = Math.max(1, options.searchesPerMinute ?? DEFAULT_SEARCHES_PER_MINUTE);
    this.#onWarning = options.onWarning;
    this.#retry = {
      maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 5),
      initialDelayMs: options.retry?.initialDelayMs ?? 250,
      factor: options.retry?.factor ?? 2,
      maxDelayMs: options.retry?.maxDelayMs ?? 8_000,
      jitter: options.retry?.jitter ?? 0.2,
    };
    this.#onRetry = options.onRetry;
  }

  /**
   * Offers matching the query, in the server's order (cheapest first, then most reliable). A malformed
   * offer is skipped (reported through onWarning). Searches are kept under Vast's limit of about 10 a
   * minute: past it, the call waits for a slot (or fails at once past `maxWaitMs`).
   */
  async searchOffers(query: OfferSearchQuery, opts: SearchOptions = {}): Promise<MarketplaceOffer[]> {
    const body = buildOfferSearchBody(query);
    const cacheKey = JSON.stringify(body);
    if (opts.maxAgeMs !== undefined) {
      const cached = this.#searchCache.get(cacheKey);
      if (cached && Date.now() - cached.at <= opts.maxAgeMs) return cached.offers;
    }
    // A search changes nothing, so it is safe to repeat although it is a POST.
    const res = await this.#call({
      method: 'POST',
      path: '/bundles/',
      body,
      idempotent: true,
      schema: OffersResponseSchema,
      signal: opts.signal,
      beforeAttempt: () => this.#searchSlot(opts),
    });
    const offers: MarketplaceOffer[] = [];
    for (const raw of res.offers) {
      const parsed = MarketplaceOfferSchema.safeParse(raw);
      if (parsed.success) offers.push(parsed.data);
      else this.#warn('skipped a malformed offer from the marketplace', { offer_id: idOf(raw), problem: issuesOf(parsed.error) });
    }
    this.#searchCache.delete(cacheKey);
    this.#searchCache.set(cacheKey, { at: Date.now(), offers });
    if (this.#searchCache.size > SEARCH_CACHE_ENTRIES) this.#searchCache.delete(this.#searchCache.keys().next().value as string);
    return offers;
  }

  /**
   * Rents an offer. Allowed 120 s (creation is slow), not repeated after a timeout or 5xx (it may have
   * created an instance); a 429, which did nothing, is retried no sooner than 4.5 s later, a bounded
   * number of times. 404/410 mean the offer was taken: code `not_found` / `offer_unavailable`.
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
      create: true,
      timeoutMs: this.#createTimeoutMs,
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

  /**
   * The account's instances through `GET /api/v1/instances/` (the v0 list is deprecated and already
   * answers 410 on some accounts): `select_filters` (the labels, when given), ordered by id, pages of
   * 25 followed with `after_token` until `next_token` is empty. A malformed row is skipped and reported.
   */
  async listInstances(opts: ListOptions = {}): Promise<MarketplaceInstance[]> {
    const labels = opts.labels ?? null;
    const filters = labels === null ? {} : labels.length === 1 ? { label: { eq: labels[0] } } : { label: { in: [...labels] } };
    const out: MarketplaceInstance[] = [];
    const tokens = new Set<string>();
    let after: string | null = null;
    for (let page = 1; page <= MAX_INSTANCE_PAGES; page++) {
      const res: InstancesPage = await this.#call({
        method: 'GET',
        path: '/instances/',
        v1: true,
        endpoint: 'GET /api/v1/instances/',
        query: {
          select_filters: JSON.stringify(filters),
          order_by: JSON.stringify([{ col: 'id', dir: 'asc' }]),
          limit: String(INSTANCE_PAGE_SIZE),
          ...(after ? { after_token: after } : {}),
        },
        idempotent: true,
        schema: InstancesPageSchema,
        signal: opts.signal,
      });
      for (const raw of res.instances) {
        const parsed = MarketplaceInstanceSchema.safeParse(raw);
        if (parsed.success) out.push(parsed.data);
        else this.#warn('skipped a malformed instance row from the marketplace', { instance_id: idOf(raw), problem: issuesOf(parsed.error) });
      }
      const next = res.next_token?.trim() || null;
      if (!next) return out;
      if (tokens.has(next)) throw new MarketplaceResponseError(`GET /api/v1/instances/ handed out the same page token twice (after ${out.length} instances)`, 200, 'GET /api/v1/instances/');
      tokens.add(next);
      after = next;
    }
    throw new MarketplaceResponseError(`GET /api/v1/instances/ kept paging past ${MAX_INSTANCE_PAGES * INSTANCE_PAGE_SIZE} instances`, 200, 'GET /api/v1/instances/');
  }

  /**
   * Destroys an instance (irreversible; stops billing). A 404 surfaces as code `not_found`; an answer
   * with `success: false` is a refusal (code `http_error`), as the official CLI reads it.
   */
  async destroyInstance(instanceId: number, opts: CallOptions = {}): Promise<SuccessResponse> {
    const endpoint = `DELETE /instances/${instanceId}/`;
    const res = await this.#call({
      method: 'DELETE',
      path: `/instances/${encodeURIComponent(String(instanceId))}/`,
      body: {},
      // Repeating a destroy is harmless: at worst the second one answers 404.
      idempotent: true,
      schema: SuccessResponseSchema,
      signal: opts.signal,
    });
    if (res.success === false) {
      const why = res.msg ?? res.error ?? 'no reason given';
      throw new MarketplaceHttpError(`Vast.ai did not destroy instance ${instanceId} (success: false: ${this.#snippet(why)})`, 'http_error', 200, endpoint, res.error ?? null);
    }
    return res;
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

  /** Waits for a search slot (at most searchesPerMinute in any 60 s), or fails past maxWaitMs. */
  async #searchSlot(opts: SearchOptions): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.#searches.length > 0 && now - (this.#searches[0] as number) >= SEARCH_WINDOW_MS) this.#searches.shift();
      if (this.#searches.length < this.#searchesPerMinute) {
        this.#searches.push(now);
        return;
      }
      const waitMs = (this.#searches[0] as number) + SEARCH_WINDOW_MS - now;
      if (opts.maxWaitMs !== undefined && waitMs > opts.maxWaitMs) {
        throw new MarketplaceRateLimitError(
          `benchdesk keeps offer searches under Vast.ai's limit (about 10 a minute); the next one is allowed in ${Math.ceil(waitMs / 1000)} s`,
          'POST /bundles/',
        );
      }
      this.#onRetry?.({ endpoint: 'POST /bundles/', attempt: 0, delayMs: waitMs, reason: 'search limit' });
      await sleep(waitMs, opts.signal);
    }
  }

  #warn(message: string, fields: Record<string, unknown>): void {
    try {
      this.#onWarning?.(message, fields);
    } catch {
      // Reporting must not break a call.
    }
  }

  async #call<T>(spec: CallSpec<T>): Promise<T> {
    const endpoint = spec.endpoint ?? `${spec.method} ${spec.path}`;
    const url = new URL((spec.v1 ? this.v1BaseUrl : this.baseUrl) + spec.path);
    const timeoutMs = spec.timeoutMs ?? this.#timeoutMs;
    const maxAttempts = spec.create ? this.#createMaxAttempts : this.#retry.maxAttempts;
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
      if (spec.create) await this.#createSlot(endpoint, spec.signal);
      await spec.beforeAttempt?.();
      const canRetry = attempt < maxAttempts;
      let status: number;
      let text: string;
      let retryAfter: string | null;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = spec.signal ? AbortSignal.any([timeout, spec.signal]) : timeout;
        const res = await this.#fetch(url, { method: spec.method, headers, body, signal, redirect: 'error' });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        if (spec.signal?.aborted) throw abortError(endpoint, spec.signal.reason);
        const transport = this.#transportError(err, endpoint, url, timeoutMs);
        if (spec.idempotent && canRetry) {
          await this.#backoff(endpoint, attempt, transport.code, null, spec.signal);
          continue;
        }
        throw transport;
      }

      if (status >= 200 && status < 300) return this.#parse(text, status, endpoint, spec.schema);
      if (status === 429 && spec.create) {
        // Vast's create interval is 4.5 s (a 12 s penalty when exceeded) and it sends no Retry-After.
        this.#createNotBefore = Math.max(this.#createNotBefore, Date.now() + this.#createRateLimitDelayMs);
        if (canRetry) {
          this.#onRetry?.({ endpoint, attempt, delayMs: this.#createRateLimitDelayMs, reason: 'HTTP 429' });
          continue;
        }
        throw this.#httpError(status, text, endpoint, attempt);
      }
      const retryable = status === 429 || (spec.idempotent && RETRY_STATUSES.has(status));
      if (retryable && canRetry) {
        await this.#backoff(endpoint, attempt, `HTTP ${status}`, retryAfter, spec.signal);
        continue;
      }
      throw this.#httpError(status, text, endpoint, attempt);
    }
  }

  /** Waits until a create is allowed again after a 429. */
  async #createSlot(endpoint: string, signal?: AbortSignal): Promise<void> {
    const waitMs = this.#createNotBefore - Date.now();
    if (waitMs <= 0) return;
    await sleep(waitMs, signal).catch(() => {
      throw abortError(endpoint, signal?.reason);
    });
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
    const code =
      status === 404 ? 'not_found' : status === 410 && upstreamError !== 'deprecated_endpoint' ? 'offer_unavailable' : status >= 500 ? 'upstream_unavailable' : 'http_error';
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

  #transportError(err: unknown, endpoint: string, url: URL, timeoutMs: number): MarketplaceTransportError {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError') {
      return new MarketplaceTransportError(`${endpoint} timed out after ${timeoutMs} ms`, 'timeout', endpoint, err);
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

/** The `id` of a raw row, for the log line of a skipped one. */
function idOf(raw: unknown): unknown {
  return raw !== null && typeof raw === 'object' && 'id' in raw ? (raw as { id: unknown }).id : null;
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(row)'}: ${i.message}`)
    .join('; ');
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
