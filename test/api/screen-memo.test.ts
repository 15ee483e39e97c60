import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_PATHS } from '../../shared';
import { Authenticator, LOCKOUT_THRESHOLD } from '../../src-main/api/auth';
import { makeRequestScreen, type ScreenVerdict, type ScreenedRequest } from '../../src-main/api/request-guards';
import { TOKENS, makeBench, removeDir, type TestBench } from '../helpers/bench';

/**
 * A connection's accepted verdict is remembered and reused while the request carries the same
 * Host, Origin, Sec-Fetch-* and credentials: these tests pin down that it is reused, and that
 * everything which would change the verdict still does (token rotation, lockout, other headers).
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const IP = '127.0.0.1';

function request(socket: object, headers: Record<string, string>, url = '/v1/jobs'): ScreenedRequest {
  const all = { host: '127.0.0.1:8080', ...headers };
  return { headers: all, rawHeaders: Object.entries(all).flat(), url, socket } as unknown as ScreenedRequest;
}

function codeOf(verdict: ScreenVerdict): string {
  if (verdict.ok) return `ok:${verdict.tenantId ?? 'public'}`;
  return verdict.refusedSocket ? 'refused' : verdict.problem.code;
}

function setup() {
  const auth = new Authenticator({ apiTokens: 'acme:acme-token-1234567890', hashedTokens: [{ tenantId: 'default', sha256Hex: sha256('first-token-1234567890') }] });
  const verify = vi.spyOn(auth, 'verify');
  const screen = makeRequestScreen({ auth, isPublic: (path) => path === API_PATHS.health });
  const check = (socket: object, headers: Record<string, string>, url?: string) => codeOf(screen(request(socket, headers, url), IP, true));
  return { auth, verify, check };
}

describe('the screen remembers a connection’s accepted verdict', () => {
  it('checks the token once per connection while the request fields stay the same', () => {
    const { verify, check } = setup();
    const socket = {};
    const bearer = { authorization: 'Bearer first-token-1234567890' };
    expect(check(socket, bearer)).toBe('ok:default');
    expect(check(socket, { ...bearer })).toBe('ok:default');
    expect(check(socket, { ...bearer }, '/v1/estimates')).toBe('ok:default');
    expect(verify).toHaveBeenCalledTimes(1);
    // Another connection is screened on its own.
    expect(check({}, bearer)).toBe('ok:default');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('screens afresh when a field changes: token, tenant, Host, Origin, Sec-Fetch-*, URL form', () => {
    const { check } = setup();
    const socket = {};
    const bearer = { authorization: 'Bearer first-token-1234567890' };
    expect(check(socket, bearer)).toBe('ok:default');
    expect(check(socket, { authorization: 'Bearer wrong-token' })).toBe('unauthorized');
    expect(check(socket, { ...bearer, 'x-tenant-id': 'acme' })).toBe('unauthorized');
    expect(check(socket, { authorization: 'Bearer acme-token-1234567890', 'x-tenant-id': 'acme' })).toBe('ok:acme');
    expect(check(socket, { ...bearer, host: 'evil.example' })).toBe('forbidden_host');
    expect(check(socket, { ...bearer, origin: 'http://evil.example' })).toBe('forbidden_origin');
    expect(check(socket, { ...bearer, 'sec-fetch-site': 'cross-site' })).toBe('forbidden_origin');
    expect(check(socket, bearer, 'http://evil.example/v1/jobs')).toBe('forbidden_host');
    expect(check(socket, bearer, API_PATHS.health)).toBe('ok:public');
    expect(check(socket, bearer)).toBe('ok:default');
  });

  it('a rotated token stops working on a connection that already used it', () => {
    const { auth, check } = setup();
    const socket = {};
    expect(check(socket, { authorization: 'Bearer first-token-1234567890' })).toBe('ok:default');
    auth.replaceHashedToken('default', sha256('first-token-1234567890'), sha256('second-token-1234567890'));
    expect(check(socket, { authorization: 'Bearer first-token-1234567890' })).toBe('unauthorized');
    expect(check(socket, { authorization: 'Bearer second-token-1234567890' })).toBe('ok:default');
  });

  it('a locked-out address: a connection that was accepted keeps its valid token; a guess on it is refused', () => {
    const { check } = setup();
    const socket = {};
    const bearer = { authorization: 'Bearer first-token-1234567890' };
    expect(check(socket, bearer)).toBe('ok:default');
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) expect(check({}, { authorization: 'Bearer guess' })).toBe('unauthorized');
    expect(check(socket, bearer)).toBe('ok:default');
    expect(check(socket, { authorization: 'Bearer another-guess' })).toBe('auth_blocked');
    expect(check({}, bearer)).toBe('ok:default');
  });
});

describe('over real keep-alive connections', () => {
  let t: TestBench | undefined;
  afterEach(async () => {
    await t?.close();
    if (t) await removeDir(t.dir);
    t = undefined;
  });

  it('one connection: the token is hashed once, a tenant switch and a wrong token are still seen', async () => {
    t = await makeBench({ start: true });
    const port = (t.bd.app.server.address() as { port: number }).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; localPort: number | undefined; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, localPort: req.socket?.localPort, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const verify = vi.spyOn(t.bd.auth, 'verify');
    const asDefault = { authorization: `Bearer ${TOKENS.default}` };
    const submitted = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { backend_url: 'http://127.0.0.1:9' } });
    const jobId = (JSON.parse(submitted.body) as { job_id: string }).job_id;
    verify.mockClear();

    const first = await get(API_PATHS.jobs, asDefault);
    const second = await get(API_PATHS.job(jobId), asDefault);
    const third = await get(API_PATHS.jobs, asDefault);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect(new Set([first.localPort, second.localPort, third.localPort]).size).toBe(1);
    expect(verify).toHaveBeenCalledTimes(1);

    // The same connection as another tenant: its own view, where the default tenant's job does not exist.
    const acme = await get(API_PATHS.job(jobId), { authorization: `Bearer ${TOKENS.acme}`, 'x-tenant-id': 'acme' });
    expect(acme.status).toBe(404);
    const wrong = await get(API_PATHS.jobs, { authorization: 'Bearer not-a-token' });
    expect(wrong.status).toBe(401);
    agent.destroy();
  });
});
