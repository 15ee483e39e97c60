import { createHash, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TENANT = 'default';
export const LOCKOUT_THRESHOLD = 10;
export const LOCKOUT_WINDOW_MS = 60_000;

export type AuthMode = 'enabled' | 'disabled' | 'unconfigured';

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

// Compared against when a tenant is unknown, so the work done does not reveal which tenants exist.
const DUMMY_HASH = sha256('benchdesk:no-such-tenant');

/**
 * Parses SERVICE_API_TOKENS: comma-separated `tenant:token` items, a bare `token` meaning tenant
 * `default`. Only SHA-256 hashes are kept; the plaintext is not stored anywhere.
 */
export function parseApiTokens(raw: string | undefined): Map<string, Buffer[]> {
  const tokens = new Map<string, Buffer[]>();
  for (const item of (raw ?? '').split(',')) {
    const trimmed = item.trim();
    if (!trimmed) continue;
    const colon = trimmed.indexOf(':');
    const tenant = colon >= 0 ? trimmed.slice(0, colon).trim() : DEFAULT_TENANT;
    const token = colon >= 0 ? trimmed.slice(colon + 1).trim() : trimmed;
    if (!tenant || !token) continue;
    const list = tokens.get(tenant) ?? [];
    list.push(sha256(token));
    tokens.set(tenant, list);
  }
  return tokens;
}

export type Credentials = { tenantId: string; token: string | undefined };

/** Reads `X-Tenant-ID` (default `default`) and `Authorization: Bearer` or `X-API-Key`. */
export function readCredentials(headers: Record<string, string | string[] | undefined>): Credentials {
  const tenantHeader = first(headers['x-tenant-id'])?.trim();
  const authorization = first(headers.authorization)?.trim();
  let token: string | undefined;
  if (authorization) {
    const match = /^bearer\s+(.+)$/i.exec(authorization);
    token = match?.[1]?.trim() || undefined;
  }
  token ??= first(headers['x-api-key'])?.trim() || undefined;
  return { tenantId: tenantHeader || DEFAULT_TENANT, token };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export type AuthDecision =
  | { ok: true; tenantId: string }
  | { ok: false; reason: 'blocked'; retryAfterSeconds: number }
  | { ok: false; reason: 'invalid' | 'missing' };

/**
 * Authentication state of one server: the hashed tokens and the failed-attempt limiter
 * (10 failures from one IP in a rolling 60 s window block that IP until the window clears).
 */
export class Authenticator {
  readonly mode: AuthMode;
  private readonly tokens: Map<string, Buffer[]>;
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(options: {
    apiTokens?: string | undefined;
    /** Tokens known only by their SHA-256 (the desktop app's own token). */
    hashedTokens?: readonly { tenantId: string; sha256Hex: string }[];
    disabled?: boolean;
    now?: () => number;
  }) {
    this.tokens = parseApiTokens(options.apiTokens);
    for (const { tenantId, sha256Hex } of options.hashedTokens ?? []) {
      const list = this.tokens.get(tenantId) ?? [];
      list.push(Buffer.from(sha256Hex, 'hex'));
      this.tokens.set(tenantId, list);
    }
    this.mode = options.disabled ? 'disabled' : this.tokens.size > 0 ? 'enabled' : 'unconfigured';
    this.now = options.now ?? Date.now;
  }

  get tenantCount(): number {
    return this.tokens.size;
  }

  /** Seconds until `ip` is unblocked, or 0 when it is not blocked. */
  blockedFor(ip: string): number {
    const recent = this.recentFailures(ip);
    if (recent.length < LOCKOUT_THRESHOLD) return 0;
    // The block lifts when fewer than THRESHOLD failures remain inside the window.
    const liftingFailure = recent[recent.length - LOCKOUT_THRESHOLD] ?? this.now();
    return Math.max(1, Math.ceil((liftingFailure + LOCKOUT_WINDOW_MS - this.now()) / 1000));
  }

  authenticate(ip: string, credentials: Credentials): AuthDecision {
    if (this.mode === 'disabled') return { ok: true, tenantId: credentials.tenantId };
    const blocked = this.blockedFor(ip);
    if (blocked > 0) return { ok: false, reason: 'blocked', retryAfterSeconds: blocked };
    if (credentials.token === undefined) {
      this.recordFailure(ip);
      return { ok: false, reason: 'missing' };
    }
    if (this.verify(credentials.tenantId, credentials.token)) return { ok: true, tenantId: credentials.tenantId };
    this.recordFailure(ip);
    return { ok: false, reason: 'invalid' };
  }

  /** Constant-time check of a (tenant, token) pair against the configured hashes. */
  verify(tenantId: string, token: string): boolean {
    const presented = sha256(token);
    const candidates = this.tokens.get(tenantId) ?? [DUMMY_HASH];
    let match = false;
    for (const candidate of candidates) match = timingSafeEqual(presented, candidate) || match;
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
    const list = this.recentFailures(ip);
    list.push(this.now());
    this.failures.set(ip, list);
  }
}
