/**
 * Typed marketplace errors. Messages are written for the user and never contain the API key:
 * the client builds them from the endpoint name, the status and a redacted, truncated body.
 */

export type MarketplaceErrorCode =
  | 'auth'
  | 'rate_limited'
  | 'not_found'
  | 'offer_unavailable'
  /** A 200 `{success: false, msg}` on create: Vast refused (credit, the offer...), in its own words. */
  | 'create_refused'
  | 'upstream_unavailable'
  | 'http_error'
  | 'bad_response'
  | 'timeout'
  | 'network'
  | 'aborted'
  | 'invalid_request'
  | 'model_not_in_catalog'
  | 'template_not_found'
  | 'no_offers'
  | 'offers_exhausted'
  | 'instance_failed'
  | 'instance_gone'
  | 'wait_timeout'
  | 'budget_exceeded';

export class MarketplaceError extends Error {
  constructor(
    message: string,
    readonly code: MarketplaceErrorCode,
    /** HTTP status when the error came from a response. */
    readonly status: number | null = null,
    /** e.g. `GET /instances/123/`. */
    readonly endpoint: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MarketplaceError';
  }
}

/** 401/403: the key is missing, wrong or lacks a permission. */
export class MarketplaceAuthError extends MarketplaceError {
  constructor(message: string, status: number, endpoint: string) {
    super(message, 'auth', status, endpoint);
    this.name = 'MarketplaceAuthError';
  }
}

/** 429 after the retry budget was spent. */
export class MarketplaceRateLimitError extends MarketplaceError {
  constructor(message: string, endpoint: string) {
    super(message, 'rate_limited', 429, endpoint);
    this.name = 'MarketplaceRateLimitError';
  }
}

/** Non-2xx that is not one of the more specific cases. `code` tells 404/410/5xx apart. */
export class MarketplaceHttpError extends MarketplaceError {
  constructor(
    message: string,
    code: MarketplaceErrorCode,
    status: number,
    endpoint: string,
    /** Vast's own `error` field, e.g. `no_such_ask`, when present. */
    readonly upstreamError: string | null = null,
  ) {
    super(message, code, status, endpoint);
    this.name = 'MarketplaceHttpError';
  }
}

/** A 2xx whose body is not JSON or not the shape we expect. */
export class MarketplaceResponseError extends MarketplaceError {
  constructor(message: string, status: number, endpoint: string) {
    super(message, 'bad_response', status, endpoint);
    this.name = 'MarketplaceResponseError';
  }
}

/** Timeouts, connection failures and caller aborts: no response at all. */
export class MarketplaceTransportError extends MarketplaceError {
  constructor(message: string, code: 'timeout' | 'network' | 'aborted', endpoint: string | null, cause?: unknown) {
    super(message, code, null, endpoint, { cause });
    this.name = 'MarketplaceTransportError';
  }
}

/** Provisioning outcomes that are not a single HTTP failure (no offers, instance exited, ...). */
export class MarketplaceProvisioningError extends MarketplaceError {
  constructor(message: string, code: MarketplaceErrorCode, readonly instanceId: number | null = null) {
    super(message, code);
    this.name = 'MarketplaceProvisioningError';
  }
}

export function isMarketplaceError(err: unknown): err is MarketplaceError {
  return err instanceof MarketplaceError;
}

/**
 * 404 and 410 both mean "this offer is not there (any more)" — but only when the body says so: a 404
 * whose body says `auth_error` / "Invalid user key" is a refused key (code `auth`), never "gone".
 */
export function isNotThere(err: unknown): boolean {
  return err instanceof MarketplaceError && (err.code === 'not_found' || err.code === 'offer_unavailable');
}

/** The marketplace answered that the instance does not exist (a 404 that is not an auth failure). */
export function isGoneAnswer(err: unknown): boolean {
  return err instanceof MarketplaceError && err.code === 'not_found';
}

/** The key was refused (401/403, or a 404 whose body says `auth_error`): another key may still work. */
export function isAuthError(err: unknown): boolean {
  return err instanceof MarketplaceError && err.code === 'auth';
}

export function abortError(endpoint: string | null = null, reason?: unknown): MarketplaceTransportError {
  return new MarketplaceTransportError(`marketplace request aborted${endpoint ? ` (${endpoint})` : ''}`, 'aborted', endpoint, reason);
}
