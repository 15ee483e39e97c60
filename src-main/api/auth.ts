import { hash } from 'node:crypto';
import { sourceOf } from './source-address';

export const DEFAULT_TENANT = 'default';
export const LOCKOUT_THRESHOLD = 10;
export const LOCKOUT_WINDOW_MS = 60_000;
/**
 * A valid token passes a block (it is checked even then), so the block slows guessing only: a
 * token must not be guessable. Shorter SERVICE_API_TOKENS tokens are warned about at start.
 */
export const MIN_TOKEN_CHARS = 16;

export type AuthMode = 'enabled' | 'disabled' | 'unconfigured';

/** SHA-256 as 64 lowercase hex digits. */
function sha256(value: string): string {
  // Every authenticated request hashes its token. The one-shot form with a string digest: a Hash
  // object per call cost 1.6× as much, and a Buffer digest 3× (0.8 µs against 0.25 µs here, plus
  // an ArrayBuffer per request for the garbage collector).
  return hash('sha256', value);
}

/**
 * Compares two SHA-256 hex digests in time that depends only on their (fixed) length: every
 * character is looked at, with no early exit, as crypto.timingSafeEqual does for buffers.
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== 64 || b.length !== 64) return false;
  let diff = 0;
  for (let i = 0; i < 64; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// Compared against when a tenant is unknown, so the work done does not reveal which tenants exist.
const DUMMY_HASH = sha256('benchdesk:no-such-tenant');

/**
 * The items of SERVICE_API_TOKENS in order: comma-separated `tenant:token`, a bare `token` meaning
 * tenant `default`; items with an empty tenant or token are skipped. The one reading of the
 * variable: the API checks tokens with it, `serve` finds the browser's sign-in token with it.
 */
export function apiTokenItems(raw: string | undefined): Array<{ tenant: string; token: string }> {
  const items: Array<{ tenant: string; token: string }> = [];
  for (const item of (raw ?? '').split(',')) {
    const trimmed = item.trim();
    if (!trimmed) continue;
    const colon = trimmed.indexOf(':');
    const tenant = colon >= 0 ? trimmed.slice(0, colon).trim() : DEFAULT_TENANT;
    const token = colon >= 0 ? trimmed.slice(colon + 1).trim() : trimmed;
    if (tenant && token) items.push({ tenant, token });
  }
  return items;
}

/** Tenants whose SERVICE_API_TOKENS token is shorter than MIN_TOKEN_CHARS: a guessable one, warned about at start. */
export function weakTokenTenants(raw: string | undefined): string[] {
  return [...new Set(apiTokenItems(raw).filter((i) => i.token.length < MIN_TOKEN_CHARS).map((i) => i.tenant))];
}

/** SERVICE_API_TOKENS by tenant. Only SHA-256 hashes are kept; the plaintext is not stored anywhere. */
export function parseApiTokens(raw: string | undefined): Map<string, string[]> {
  const tokens = new Map<string, string[]>();
  for (const { tenant, token } of apiTokenItems(raw)) {
    const list = tokens.get(tenant) ?? [];
    list.push(sha256(token));
    tokens.set(tenant, list);
  }
  return tokens;
}

export type Credentials = {
  tenantId: string;
  token: string | undefined;
  /** Why an Authorization header that was sent gave no token (no scheme, another scheme, no token). */
  authorizationProblem?: string | undefined;
};

export const CREDENTIALS_REQUIRED = 'credentials required: send Authorization: Bearer <token> or X-API-Key (and X-Tenant-ID for a tenant other than "default")';

/** What is wrong with an Authorization header that yields no bearer token (undefined when it does). */
export function authorizationProblem(authorization: string): string | undefined {
  const match = /^(\S+)(?:\s+(.*))?$/.exec(authorization);
  const scheme = match?.[1] ?? '';
  const rest = match?.[2]?.trim() ?? '';
  if (/^bearer$/i.test(scheme)) return rest ? undefined : 'the Authorization header says Bearer but carries no token: send Authorization: Bearer <token>';
  // One word: most likely the token itself, sent without its scheme.
  if (!rest) return 'the Authorization header has no scheme: send Authorization: Bearer <token> (or the token alone in X-API-Key)';
  return `the Authorization scheme "${scheme.slice(0, 20)}" is not supported: send Authorization: Bearer <token> or X-API-Key: <token>`;
}

/** Reads `X-Tenant-ID` (default `default`) and `Authorization: Bearer` or `X-API-Key`. */
export function readCredentials(headers: Record<string, string | string[] | undefined>): Credentials {
  const tenantHeader = first(headers['x-tenant-id'])?.trim();
  const authorization = first(headers.authorization)?.trim();
  let token: string | undefined;
  let problem: string | undefined;
  if (authorization) {
    const match = /^bearer\s+(.+)$/i.exec(authorization);
    token = match?.[1]?.trim() || undefined;
    if (token === undefined) problem = authorizationProblem(authorization);
  }
  token ??= first(headers['x-api-key'])?.trim() || undefined;
  return { tenantId: tenantHeader || DEFAULT_TENANT, token, ...(token === undefined && problem ? { authorizationProblem: problem } : {}) };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export type AuthDecision =
  | { ok: true; tenantId: string }
  | { ok: false; reason: 'blocked'; retryAfterSeconds: number }
  | { ok: false; reason: 'invalid' | 'missing'; /** What to tell the caller (says what is wrong with the header sent). */ message: string };

/**
 * Authentication state of one server: the hashed tokens and the failed-attempt limiter
 * (10 failures from one source in a rolling 60 s window block that source until the window
 * clears, for every request but one with a valid token). A source is an address, except that all of loopback (127.0.0.0/8, ::1) is one: a local
 * program cannot spread its guesses over 127.0.0.2, 127.0.0.3… Sources whose failures have aged
 * out are dropped, so addresses that fail once cannot grow the table without bound.
 */
export class Authenticator {
  readonly mode: AuthMode;
  private readonly tokens: Map<string, string[]>;
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;
  private tokenGeneration = 0;
  private lastPrune = 0;
  private readonly envTokens: boolean;
  private appToken: boolean;

  constructor(options: {
    apiTokens?: string | undefined;
    /** Tokens known only by their SHA-256 (the desktop app's own token). */
    hashedTokens?: readonly { tenantId: string; sha256Hex: string }[];
    disabled?: boolean;
    now?: () => number;
  }) {
    this.tokens = parseApiTokens(options.apiTokens);
    this.envTokens = this.tokens.size > 0;
    this.appToken = (options.hashedTokens ?? []).length > 0;
    for (const { tenantId, sha256Hex } of options.hashedTokens ?? []) {
      const list = this.tokens.get(tenantId) ?? [];
      list.push(sha256Hex.toLowerCase());
      this.tokens.set(tenantId, list);
    }
    this.mode = options.disabled ? 'disabled' : this.tokens.size > 0 ? 'enabled' : 'unconfigured';
    this.now = options.now ?? Date.now;
  }

  /**
   * Replaces the app token (known by its hash) of `tenantId`: `previousSha256Hex` stops working and
   * `nextSha256Hex` works from the next request on. Tokens from SERVICE_API_TOKENS are untouched.
   * Rotating from "no auth configured" keeps the mode: an unconfigured server answers only
   * /healthz until it restarts with the token (the Settings page says so).
   */
  replaceHashedToken(tenantId: string, previousSha256Hex: string | undefined, nextSha256Hex: string): void {
    const previous = previousSha256Hex?.toLowerCase();
    const list = (this.tokens.get(tenantId) ?? []).filter((digest) => digest !== previous);
    list.push(nextSha256Hex.toLowerCase());
    this.tokens.set(tenantId, list);
    this.appToken = true;
    this.tokenGeneration++;
  }

  /** Where accepted tokens come from (for /healthz's sign-in hint): the app's token file, the environment. */
  tokenSources(): ('app_token' | 'environment')[] {
    if (this.mode !== 'enabled') return [];
    return [...(this.appToken ? (['app_token'] as const) : []), ...(this.envTokens ? (['environment'] as const) : [])];
  }

  /** Changes whenever the set of accepted tokens does: a verdict remembered under another generation is stale. */
  get generation(): number {
    return this.tokenGeneration;
  }

  get tenantCount(): number {
    return this.tokens.size;
  }

  /** Sources with failures still remembered (aged-out ones are dropped as failures come in). */
  get failureSources(): number {
    return this.failures.size;
  }

  /** Seconds until `address` (its source) is unblocked, or 0 when it is not blocked. */
  blockedFor(address: string): number {
    const ip = sourceOf(address);
    // The common case (no recent failure from this source) allocates nothing.
    if (!this.failures.has(ip)) return 0;
    const recent = this.recentFailures(ip);
    if (recent.length < LOCKOUT_THRESHOLD) return 0;
    // The block lifts when fewer than THRESHOLD failures remain inside the window.
    const liftingFailure = recent[recent.length - LOCKOUT_THRESHOLD] ?? this.now();
    return Math.max(1, Math.ceil((liftingFailure + LOCKOUT_WINDOW_MS - this.now()) / 1000));
  }

  /**
   * `countFailure: false`: a failure that is not a guess (see request-guards) leaves the limiter alone.
   *
   * A blocked source is refused unless the request carries a valid token: one local program's
   * bad guesses used to lock every local client out for 60 s, valid tokens included (issue 34
   * item 5). A wrong token while blocked is refused as blocked and counted (the block goes on);
   * a request without one is refused as blocked unchecked.
   */
  authenticate(address: string, credentials: Credentials, options: { countFailure?: boolean } = {}): AuthDecision {
    if (this.mode === 'disabled') return { ok: true, tenantId: credentials.tenantId };
    const ip = sourceOf(address);
    const blocked = this.blockedFor(ip);
    const count = options.countFailure ?? true;
    if (blocked > 0) {
      if (credentials.token !== undefined && this.verify(credentials.tenantId, credentials.token)) return { ok: true, tenantId: credentials.tenantId };
      if (credentials.token !== undefined && count) this.recordFailure(ip);
      return { ok: false, reason: 'blocked', retryAfterSeconds: this.blockedFor(ip) || blocked };
    }
    if (credentials.token === undefined) {
      if (count) this.recordFailure(ip);
      return { ok: false, reason: 'missing', message: credentials.authorizationProblem ?? CREDENTIALS_REQUIRED };
    }
    if (this.verify(credentials.tenantId, credentials.token)) return { ok: true, tenantId: credentials.tenantId };
    if (count) this.recordFailure(ip);
    return { ok: false, reason: 'invalid', message: 'invalid tenant/token combination' };
  }

  /** Constant-time check of a (tenant, token) pair against the configured hashes. */
  verify(tenantId: string, token: string): boolean {
    const presented = sha256(token);
    const candidates = this.tokens.get(tenantId) ?? [DUMMY_HASH];
    let match = false;
    for (const candidate of candidates) match = digestsEqual(presented, candidate) || match;
    return match && this.tokens.has(tenantId);
  }

  private recentFailures(ip: string): number[] {
    const cutoff = this.now() - LOCKOUT_WINDOW_MS;
    const list = (this.failures.get(ip) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) this.failures.delete(ip);
    else this.failures.set(ip, list);
    return list;
  }

  private recordFailure(ip: string): void {
    this.pruneAgedOut();
    const list = this.recentFailures(ip);
    list.push(this.now());
    // Only the last THRESHOLD failures decide a block: a flood of guesses keeps a short list.
    if (list.length > LOCKOUT_THRESHOLD) list.splice(0, list.length - LOCKOUT_THRESHOLD);
    this.failures.set(ip, list);
  }

  /** Once per window: forget the sources none of whose failures are inside it any more. */
  private pruneAgedOut(): void {
    const now = this.now();
    if (now - this.lastPrune < LOCKOUT_WINDOW_MS) return;
    this.lastPrune = now;
    const cutoff = now - LOCKOUT_WINDOW_MS;
    for (const [ip, list] of this.failures) if ((list[list.length - 1] ?? 0) <= cutoff) this.failures.delete(ip);
  }
}
