import type { z } from 'zod';
import {
  CurrentUserSchema,
  InstancesPageSchema,
  MarketplaceInstanceSchema,
  MarketplaceOfferSchema,
  OffersResponseSchema,
  RentAnswerSchema,
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
import { MarketplaceError, MarketplaceHttpError, MarketplaceRateLimitError, MarketplaceResponseError } from './errors';
import { buildOfferSearchBody, type FieldFilter, type OfferSearchQuery } from './offer-query';
import { sleep } from './sleep';
import { Pacer, type PacerOptions } from './vast-pacing';
import { API_KEY_SETTING, VastTransport, type RetryInfo, type RetryOptions } from './vast-transport';

export { API_KEY_SETTING, parseRetryAfter, type RetryInfo, type RetryOptions } from './vast-transport';
export { buildOfferSearchBody, DEFAULT_OFFER_ORDER, type FieldFilter, type FilterOperator, type FilterScalar, type OfferSearchQuery } from './offer-query';

/** The base URL as the official CLI writes it (`VAST_URL`); `/api/v0` is added (reference §A.1). */
export const DEFAULT_MARKETPLACE_API_URL = 'https://console.vast.ai/api/v0';

export type VastClientOptions = {
  /** `https://console.vast.ai/api/v0`, or the CLI's form `https://console.vast.ai` (then `/api/v0` is added). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per attempt, covering headers and body (default 120 s, as the official CLI allows). */
  timeoutMs?: number;
  /** Per attempt of an instance creation (default 120 s). */
  createTimeoutMs?: number;
  /** Create attempts when each meets a 429, first one included (default 5: each waits the penalty). */
  createMaxAttempts?: number;
  /** Offer searches allowed in any 60 s (default 9: Vast allows about 10 a minute per IP; none counted when pacing's scale is 0). */
  searchesPerMinute?: number;
  /** How calls are spaced per route (Vast's thresholds by default; `scale: 0` turns pacing off against a fake). */
  pacing?: PacerOptions;
  retry?: RetryOptions;
  /** Observability hook, called before each backoff sleep and after each 429. */
  onRetry?: (info: RetryInfo) => void;
  /** Told about what the client skipped or worked around (a malformed offer or instance row). */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
};

export type CallOptions = { signal?: AbortSignal | undefined };

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

export type RentParams = {
  templateHashId: string;
  diskGb: number;
  label: string;
  env: Record<string, string>;
};

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_CREATE_TIMEOUT_MS = 120_000;
export const DEFAULT_SEARCHES_PER_MINUTE = 9;
/** Rows per page of the v1 instance list (its maximum). */
export const INSTANCE_PAGE_SIZE = 25;
/** A listing longer than this many pages (10,000 instances) is a server that keeps paging: stop. */
const MAX_INSTANCE_PAGES = 400;
const SEARCH_WINDOW_MS = 60_000;
const SEARCH_CACHE_ENTRIES = 32;
/** An HTTP header value must be visible ASCII; anything else would throw inside fetch, echoing the key. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The v0 and v1 base URLs from what the user configured: the full `…/api/v0`, or the CLI's
 * `https://console.vast.ai` (and `…/api`), to which `/api/v0` is added.
 */
export function marketplaceBaseUrls(raw: string): { v0: string; v1: string } {
  const base = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new MarketplaceError(`marketplace base URL ${JSON.stringify(base)} is not a URL`, 'invalid_request');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new MarketplaceError(`marketplace base URL must be http(s), got ${url.protocol}`, 'invalid_request');
  if (url.username || url.password) throw new MarketplaceError('marketplace base URL must not carry credentials', 'invalid_request');
  const pathname = url.pathname.replace(/\/+$/, '');
  const v0 = pathname === '' ? `${base}/api/v0` : /\/api$/.test(pathname) ? `${base}/v0` : /\/api\/v1$/.test(pathname) ? base.replace(/\/v1$/, '/v0') : base;
  return { v0, v1: v0.replace(/\/[^/]*$/, '/v1') };
}

/**
 * Typed Vast.ai REST client for one key. Sends the key only as `Authorization: Bearer`, validates
 * every response with the zod schemas of vast-wire.ts, paces each route (creates one at a time,
 * spaced, a 429's penalty honoured), retries with bounded backoff and maps failures to typed
 * MarketplaceErrors.
 */
export class VastClient {
  readonly baseUrl: string;
  /** Where the v1 endpoints live: the base URL's last segment (`v0`) replaced by `v1`. */
  readonly v1BaseUrl: string;
  readonly pacer: Pacer;
  readonly #http: VastTransport;
  readonly #createTimeoutMs: number;
  readonly #createMaxAttempts: number;
  readonly #searchesPerMinute: number;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;
  readonly #onWarning: ((message: string, fields: Record<string, unknown>) => void) | undefined;
  /** When the searches of the last minute were sent (ms). */
  readonly #searches: number[] = [];
  readonly #searchCache = new Map<string, { at: number; offers: MarketplaceOffer[] }>();

  constructor(options: VastClientOptions) {
    const { v0, v1 } = marketplaceBaseUrls(options.baseUrl);
    const key = options.apiKey.trim();
    if (!key) throw new MarketplaceError(`${API_KEY_SETTING} is empty`, 'auth');
    if (!HEADER_SAFE.test(key)) throw new MarketplaceError(`${API_KEY_SETTING} contains characters that cannot be sent in an HTTP header`, 'auth');
    this.baseUrl = v0;
    this.v1BaseUrl = v1;
    this.pacer = new Pacer(options.pacing);
    this.#createTimeoutMs = options.createTimeoutMs ?? DEFAULT_CREATE_TIMEOUT_MS;
    this.#createMaxAttempts = Math.max(1, options.createMaxAttempts ?? 5);
    // The search budget is pacing too: it scales with it (0 turns it off against a fake, as the pacer).
    const scale = Math.max(0, options.pacing?.scale ?? 1);
    this.#searchesPerMinute = Math.max(1, options.searchesPerMinute ?? (scale === 0 ? Number.POSITIVE_INFINITY : Math.floor(DEFAULT_SEARCHES_PER_MINUTE / Math.max(1, scale))));
    this.#onWarning = options.onWarning;
    this.#onRetry = options.onRetry;
    this.#http = new VastTransport({
      v0BaseUrl: v0,
      v1BaseUrl: v1,
      apiKey: key,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      pacer: this.pacer,
      onRetry: options.onRetry,
      retry: {
        maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 5),
        initialDelayMs: options.retry?.initialDelayMs ?? 250,
        factor: options.retry?.factor ?? 2,
        maxDelayMs: options.retry?.maxDelayMs ?? 8_000,
        jitter: options.retry?.jitter ?? 0.2,
      },
    });
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
    const res = await this.#http.call({
      method: 'POST',
      path: '/bundles/',
      route: 'search',
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
   * Rents an offer. One create at a time per key, spaced (a 429 waits its penalty and is retried a
   * bounded number of times: it did nothing); allowed 120 s (creation is slow); never repeated after
   * a timeout or 5xx (it may have created an instance). 404/410 mean the offer was taken (code
   * `not_found` / `offer_unavailable`); a 200 `{success: false, msg}` is a refusal in Vast's own
   * words (code `create_refused`).
   */
  async rentOffer(offerId: number, params: RentParams, opts: CallOptions & { onWait?: (ms: number) => void } = {}): Promise<{ instanceId: number }> {
    const endpoint = `PUT /asks/${offerId}/`;
    const res = await this.#http.call({
      method: 'PUT',
      path: `/asks/${encodeURIComponent(String(offerId))}/`,
      route: 'create',
      body: { client_id: 'me', template_hash_id: params.templateHashId, disk: params.diskGb, label: params.label, env: params.env, cancel_unavail: true },
      idempotent: false,
      maxAttempts: this.#createMaxAttempts,
      timeoutMs: this.#createTimeoutMs,
      schema: RentAnswerSchema,
      signal: opts.signal,
      onWait: opts.onWait,
    });
    if (res.success === false) {
      const why = res.msg ?? res.error ?? 'no reason given';
      throw new MarketplaceHttpError(`Vast.ai refused to rent offer ${offerId}: ${this.#http.snippet(why)}`, 'create_refused', 200, endpoint, res.error ?? null);
    }
    if (res.new_contract === null || res.new_contract === undefined) {
      throw new MarketplaceResponseError(`${endpoint} answered success without the new instance's id (new_contract)`, 200, endpoint);
    }
    return { instanceId: res.new_contract };
  }

  /** One instance, or null when Vast answers `{"instances": null}` (destroyed or unknown). */
  async showInstance(instanceId: number, opts: CallOptions = {}): Promise<MarketplaceInstance | null> {
    const res = await this.#http.call({
      method: 'GET',
      path: `/instances/${encodeURIComponent(String(instanceId))}/`,
      route: 'show',
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
    const endpoint = 'GET /api/v1/instances/';
    let after: string | null = null;
    for (let page = 1; page <= MAX_INSTANCE_PAGES; page++) {
      const res: InstancesPage = await this.#http.call({
        method: 'GET',
        path: '/instances/',
        route: 'list',
        v1: true,
        endpoint,
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
      if (tokens.has(next)) throw new MarketplaceResponseError(`${endpoint} handed out the same page token twice (after ${out.length} instances)`, 200, endpoint);
      tokens.add(next);
      after = next;
    }
    throw new MarketplaceResponseError(`${endpoint} kept paging past ${MAX_INSTANCE_PAGES * INSTANCE_PAGE_SIZE} instances`, 200, endpoint);
  }

  /**
   * Destroys an instance (irreversible; stops billing). A 404 surfaces as code `not_found`; an answer
   * with `success: false` is a refusal (code `http_error`), as the official CLI reads it.
   */
  async destroyInstance(instanceId: number, opts: CallOptions = {}): Promise<SuccessResponse> {
    const endpoint = `DELETE /instances/${instanceId}/`;
    const res = await this.#http.call({
      method: 'DELETE',
      path: `/instances/${encodeURIComponent(String(instanceId))}/`,
      route: 'destroy',
      body: {},
      // Repeating a destroy is harmless: at worst the second one answers 404.
      idempotent: true,
      schema: SuccessResponseSchema,
      signal: opts.signal,
    });
    if (res.success === false) {
      const why = res.msg ?? res.error ?? 'no reason given';
      throw new MarketplaceHttpError(`Vast.ai did not destroy instance ${instanceId} (success: false: ${this.#http.snippet(why)})`, 'http_error', 200, endpoint, res.error ?? null);
    }
    return res;
  }

  /** A template (own or public) by its content hash, or null. */
  async getTemplateByHash(hashId: string, opts: CallOptions = {}): Promise<MarketplaceTemplate | null> {
    const res = await this.#http.call({
      method: 'GET',
      path: '/template/',
      route: 'template',
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
    const res = await this.#http.call({
      method: 'GET',
      path: '/template/',
      route: 'template',
      query: { select_cols: JSON.stringify(['*']), select_filters: JSON.stringify(filters) },
      idempotent: true,
      schema: TemplatesResponseSchema,
      signal: opts.signal,
    });
    return res.templates;
  }

  /** The key's account; a cheap way to check the key and show the balance. */
  async currentUser(opts: CallOptions = {}): Promise<CurrentUser> {
    return this.#http.call({ method: 'GET', path: '/users/current/', route: 'user', idempotent: true, schema: CurrentUserSchema, signal: opts.signal });
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

/** The client's operations as a type, so workflows can take a stub or a wrapped client. */
export type VastApi = Pick<
  VastClient,
  'searchOffers' | 'rentOffer' | 'showInstance' | 'listInstances' | 'destroyInstance' | 'getTemplateByHash' | 'searchTemplates' | 'currentUser'
>;
