import { createHash } from 'node:crypto';
import type * as Crypto from 'node:crypto';
import { inspect } from 'node:util';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const spies = vi.hoisted(() => ({ hash: { inputs: [] as string[] } }));

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>();
  return {
    ...real,
    hash: (algorithm: string, data: string, encoding?: Crypto.BinaryToTextEncoding) => {
      spies.hash.inputs.push(data);
      return real.hash(algorithm, data, encoding);
    },
  };
});

const { Authenticator, LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, digestsEqual, parseApiTokens, readCredentials } = await import('./auth');

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('parseApiTokens', () => {
  it('reads tenant:token items and keeps only SHA-256 hashes', () => {
    const tokens = parseApiTokens('acme:secret-a,beta:secret-b');
    expect([...tokens.keys()].sort()).toEqual(['acme', 'beta']);
    expect(tokens.get('acme')).toEqual([sha('secret-a')]);
    expect(tokens.get('beta')).toEqual([sha('secret-b')]);
    for (const list of tokens.values()) for (const hash of list) expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('maps a bare token to tenant "default"', () => {
    const tokens = parseApiTokens('just-a-token');
    expect([...tokens.keys()]).toEqual(['default']);
    expect(tokens.get('default')).toEqual([sha('just-a-token')]);
  });

  it('trims whitespace around items, tenants and tokens and skips empty items', () => {
    const tokens = parseApiTokens('  acme : tok1 ,, , bare  ,\tacme:tok2\n');
    expect(tokens.get('acme')).toEqual([sha('tok1'), sha('tok2')]);
    expect(tokens.get('default')).toEqual([sha('bare')]);
    expect(tokens.size).toBe(2);
  });

  it('keeps colons inside the token (only the first colon separates the tenant)', () => {
    expect(parseApiTokens('acme:a:b:c').get('acme')).toEqual([sha('a:b:c')]);
  });

  it('ignores items with an empty tenant or token, and an unset variable', () => {
    expect(parseApiTokens(':tok,acme:,   ').size).toBe(0);
    expect(parseApiTokens(undefined).size).toBe(0);
    expect(parseApiTokens('').size).toBe(0);
  });
});

describe('readCredentials', () => {
  it('reads Bearer (any case, surrounding spaces) and defaults the tenant', () => {
    expect(readCredentials({ authorization: '  bearer   abc  ' })).toEqual({ tenantId: 'default', token: 'abc' });
    expect(readCredentials({ authorization: 'Bearer abc', 'x-tenant-id': ' acme ' })).toEqual({ tenantId: 'acme', token: 'abc' });
  });

  it('falls back to X-API-Key and ignores other schemes', () => {
    expect(readCredentials({ 'x-api-key': ' k1 ' })).toEqual({ tenantId: 'default', token: 'k1' });
    expect(readCredentials({ authorization: 'Basic Zm9vOmJhcg==', 'x-api-key': 'k2' })).toEqual({ tenantId: 'default', token: 'k2' });
    expect(readCredentials({ authorization: 'Basic Zm9vOmJhcg==' })).toEqual({
      tenantId: 'default',
      token: undefined,
      authorizationProblem: 'the Authorization scheme "Basic" is not supported: send Authorization: Bearer <token> or X-API-Key: <token>',
    });
    expect(readCredentials({ authorization: 'Bearer    ' })).toMatchObject({ tenantId: 'default', token: undefined, authorizationProblem: expect.stringContaining('carries no token') });
    expect(readCredentials({ authorization: 'the-token-alone' })).toMatchObject({ token: undefined, authorizationProblem: expect.stringContaining('has no scheme') });
    expect(readCredentials({})).toEqual({ tenantId: 'default', token: undefined });
  });
});

describe('Authenticator', () => {
  beforeEach(() => {
    spies.hash.inputs.length = 0;
  });

  it('verifies (tenant, token) pairs only', () => {
    const auth = new Authenticator({ apiTokens: 'acme:tok-a,tok-d' });
    expect(auth.mode).toBe('enabled');
    expect(auth.verify('acme', 'tok-a')).toBe(true);
    expect(auth.verify('default', 'tok-d')).toBe(true);
    expect(auth.verify('default', 'tok-a')).toBe(false);
    expect(auth.verify('acme', 'tok-d')).toBe(false);
    expect(auth.verify('nobody', 'tok-a')).toBe(false);
    expect(auth.verify('acme', 'tok-a ')).toBe(false);
    expect(auth.verify('acme', '')).toBe(false);
  });

  it('hashes every presented token, also for unknown tenants, so the work does not reveal which tenants exist', () => {
    const auth = new Authenticator({ apiTokens: 'acme:tok-a' });
    spies.hash.inputs.length = 0;
    auth.verify('acme', 'x');
    auth.verify('acme', 'a much longer wrong token than the real one');
    auth.verify('unknown-tenant', 'tok-a');
    expect(spies.hash.inputs).toEqual(['x', 'a much longer wrong token than the real one', 'tok-a']);
  });

  it('compares digests whole: any differing digit, at either end, is a mismatch; other lengths never match', () => {
    const digest = sha('tok-a');
    expect(digestsEqual(digest, sha('tok-a'))).toBe(true);
    const flip = (i: number) => digest.slice(0, i) + (digest[i] === '0' ? '1' : '0') + digest.slice(i + 1);
    for (const i of [0, 31, 63]) expect(digestsEqual(digest, flip(i))).toBe(false);
    expect(digestsEqual(digest.slice(0, 63), digest.slice(0, 63))).toBe(false);
    expect(digestsEqual(`${digest}0`, `${digest}0`)).toBe(false);
    expect(digestsEqual('', '')).toBe(false);
  });

  it('accepts a stored digest written in capitals, and rotating one drops the old digest', () => {
    const auth = new Authenticator({ hashedTokens: [{ tenantId: 'default', sha256Hex: sha('old').toUpperCase() }] });
    expect(auth.verify('default', 'old')).toBe(true);
    auth.replaceHashedToken('default', sha('old').toUpperCase(), sha('new'));
    expect(auth.verify('default', 'old')).toBe(false);
    expect(auth.verify('default', 'new')).toBe(true);
  });

  it('accepts a token known only by its hash (the desktop token)', () => {
    const auth = new Authenticator({ hashedTokens: [{ tenantId: 'default', sha256Hex: sha('desk') }] });
    expect(auth.mode).toBe('enabled');
    expect(auth.verify('default', 'desk')).toBe(true);
    expect(auth.verify('default', 'other')).toBe(false);
  });

  it('keeps no plaintext token in memory', () => {
    const auth = new Authenticator({ apiTokens: 'acme:plaintext-secret-42,bare-secret-99' });
    const dump = inspect(auth, { depth: 10, showHidden: true, maxArrayLength: 1000 });
    expect(dump).not.toContain('plaintext-secret-42');
    expect(dump).not.toContain('bare-secret-99');
    expect(JSON.stringify([...parseApiTokens('acme:plaintext-secret-42')])).not.toContain('plaintext-secret-42');
  });

  it('reports its mode: disabled wins, no tokens = unconfigured', () => {
    expect(new Authenticator({}).mode).toBe('unconfigured');
    expect(new Authenticator({ apiTokens: ' , ' }).mode).toBe('unconfigured');
    expect(new Authenticator({ apiTokens: 'a:b', disabled: true }).mode).toBe('disabled');
    const disabled = new Authenticator({ disabled: true });
    expect(disabled.authenticate('1.2.3.4', { tenantId: 'acme', token: undefined })).toEqual({ ok: true, tenantId: 'acme' });
  });

  it('blocks an IP after 10 failures in a rolling 60 s window', () => {
    let now = 1_000_000;
    const auth = new Authenticator({ apiTokens: 'good', now: () => now });
    const bad = { tenantId: 'default', token: 'bad' };
    const good = { tenantId: 'default', token: 'good' };
    for (let i = 1; i <= LOCKOUT_THRESHOLD; i++) {
      const d = auth.authenticate('10.0.0.1', bad);
      expect(d).toEqual({ ok: false, reason: 'invalid', message: 'invalid tenant/token combination' });
      now += 1000;
    }
    // Blocked: no token, or a wrong one, is refused unchecked-for-success; a valid token still passes (issue 34 item 5).
    expect(auth.authenticate('10.0.0.1', { tenantId: 'default', token: undefined })).toEqual({ ok: false, reason: 'blocked', retryAfterSeconds: 50 });
    expect(auth.blockedFor('10.0.0.1')).toBe(50);
    expect(auth.authenticate('10.0.0.1', good)).toEqual({ ok: true, tenantId: 'default' });
    // other IPs are unaffected
    expect(auth.authenticate('10.0.0.2', good)).toEqual({ ok: true, tenantId: 'default' });
    // The first failure (at 1_000_000) leaves the window at 1_060_000: then 9 remain, unblocked.
    now = 1_000_000 + LOCKOUT_WINDOW_MS;
    expect(auth.blockedFor('10.0.0.1')).toBe(0);
    expect(auth.authenticate('10.0.0.1', good)).toEqual({ ok: true, tenantId: 'default' });
    // 9 failures are still in the window: one more blocks again.
    expect(auth.authenticate('10.0.0.1', bad)).toEqual({ ok: false, reason: 'invalid', message: 'invalid tenant/token combination' });
    expect(auth.blockedFor('10.0.0.1')).toBeGreaterThan(0);
  });

  it('while blocked, wrong guesses keep the block going and a valid token passes throughout; requests without a token are not counted', () => {
    let now = 0;
    const auth = new Authenticator({ apiTokens: 'good', now: () => now });
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) auth.authenticate('ip', { tenantId: 'default', token: 'bad' });
    for (let i = 0; i < 120; i++) {
      now += 1000;
      expect(auth.authenticate('ip', { tenantId: 'default', token: 'bad' })).toMatchObject({ reason: 'blocked' });
      expect(auth.authenticate('ip', { tenantId: 'default', token: 'good' })).toEqual({ ok: true, tenantId: 'default' });
    }
    // Two minutes of guessing: still blocked, and the table keeps the last few failures only.
    expect(auth.blockedFor('ip')).toBeGreaterThan(0);
    now += LOCKOUT_WINDOW_MS;
    expect(auth.blockedFor('ip')).toBe(0);
    // No token while blocked: refused, not counted.
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) auth.authenticate('other', { tenantId: 'default', token: 'bad' });
    for (let i = 0; i < 50; i++) expect(auth.authenticate('other', { tenantId: 'default', token: undefined })).toMatchObject({ reason: 'blocked' });
    now += LOCKOUT_WINDOW_MS;
    expect(auth.blockedFor('other')).toBe(0);
  });
});

describe('the failed-login table', () => {
  it('forgets sources whose failures aged out, so addresses that fail once cannot grow it without bound', () => {
    let now = 1_000_000;
    const auth = new Authenticator({ apiTokens: 'default:right', now: () => now });
    const wrong = { tenantId: 'default', token: 'wrong' };
    for (let i = 0; i < 5_000; i++) auth.authenticate(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, wrong);
    expect(auth.failureSources).toBe(5_000);
    now += LOCKOUT_WINDOW_MS + 1;
    auth.authenticate('192.0.2.1', wrong);
    expect(auth.failureSources).toBe(1);
  });

  it('counts every loopback address as one source', () => {
    let now = 1_000_000;
    const auth = new Authenticator({ apiTokens: 'default:right', now: () => now });
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) auth.authenticate(`127.0.${i}.9`, { tenantId: 'default', token: 'wrong' });
    expect(auth.failureSources).toBe(1);
    expect(auth.blockedFor('::1')).toBeGreaterThan(0);
    expect(auth.authenticate('::ffff:127.1.2.3', { tenantId: 'default', token: 'wrong' })).toMatchObject({ ok: false, reason: 'blocked' });
    expect(auth.authenticate('::ffff:127.1.2.3', { tenantId: 'default', token: 'right' })).toMatchObject({ ok: true });
    expect(auth.blockedFor('192.0.2.1')).toBe(0);
    now += LOCKOUT_WINDOW_MS + 1;
    expect(auth.authenticate('127.0.0.1', { tenantId: 'default', token: 'right' })).toMatchObject({ ok: true });
  });
});

describe('Authenticator.tokenSources (the sign-in hint of /healthz)', () => {
  it('names where accepted tokens come from, and nothing while auth is off or unconfigured', () => {
    expect(new Authenticator({ apiTokens: 'default:abc' }).tokenSources()).toEqual(['environment']);
    expect(new Authenticator({ hashedTokens: [{ tenantId: 'default', sha256Hex: sha('t') }] }).tokenSources()).toEqual(['app_token']);
    expect(new Authenticator({ apiTokens: 'default:abc', hashedTokens: [{ tenantId: 'default', sha256Hex: sha('t') }] }).tokenSources()).toEqual(['app_token', 'environment']);
    expect(new Authenticator({ apiTokens: 'default:abc', disabled: true }).tokenSources()).toEqual([]);
    expect(new Authenticator({}).tokenSources()).toEqual([]);
    // Rotating creates the app token next to the environment's.
    const auth = new Authenticator({ apiTokens: 'default:abc' });
    auth.replaceHashedToken('default', undefined, sha('new'));
    expect(auth.tokenSources()).toEqual(['app_token', 'environment']);
  });
});
