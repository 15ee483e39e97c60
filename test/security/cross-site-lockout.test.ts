import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { LOCKOUT_THRESHOLD } from '../../src-main/api/auth';
import { TOKENS, json, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { portOf, rawExchange } from './raw-http';

/**
 * Issue 14 item 2: a web page must not be able to lock the user out. Browsers mark requests made
 * for another site (`<img src=http://127.0.0.1:…>` carries no Origin) with Sec-Fetch-* headers;
 * those are refused before authentication, so they never count as failed logins.
 */

const benches: TestBench[] = [];
async function bench(): Promise<TestBench> {
  const t = await makeBench({ start: true });
  benches.push(t);
  return t;
}
afterEach(async () => {
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

const IMG = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' };

describe('cross-site requests and the failed-login lockout', () => {
  it('20 cross-site <img> requests are refused with 403 and the valid token still works', async () => {
    const t = await bench();
    for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: IMG });
      expect(res.statusCode, `request ${i + 1}`).toBe(403);
      expect(json(res).code).toBe('forbidden_origin');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const ok = await t.req({ method: 'GET', url: API_PATHS.jobs });
    expect(ok.statusCode).toBe(200);
    expect(t.bd.auth.blockedFor('127.0.0.1')).toBe(0);
  });

  it('the same over a real socket, as a browser sends it', async () => {
    const t = await bench();
    const port = portOf(t.bd.app);
    for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) {
      const res = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nSec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\nSec-Fetch-Dest: image\r\nReferer: https://evil.example/\r\n\r\n`);
      expect(res.status).toBe(403);
    }
    const ok = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\nConnection: close\r\n\r\n`);
    expect(ok.status).toBe(200);
  });

  it.each([
    ['a cross-site navigation or form post', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 'POST'],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://evil.example' }, 'GET'],
    ['a same-site page on another port, with its Origin', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: 'http://localhost:3000' }, 'GET'],
    ['a same-site page on another port, without Origin', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' }, 'GET'],
    ['a no-cors load from a page that is not ours', { 'sec-fetch-mode': 'no-cors' }, 'GET'],
  ] as const)('%s is refused and never counted', async (_what, headers, method) => {
    const t = await bench();
    for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) {
      const res = await t.req({ method, url: method === 'POST' ? '/v1/jobs/llm-instance' : API_PATHS.jobs, noAuth: true, headers: { ...headers, authorization: 'Bearer wrong' } });
      expect(res.statusCode).toBe(403);
    }
    expect(t.bd.auth.blockedFor('127.0.0.1')).toBe(0);
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs })).statusCode).toBe(200);
  });

  it("our own page (same-origin) without a token is answered 401 but never counted; a wrong token from it still counts", async () => {
    const t = await bench();
    const ownPage = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' };
    for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: ownPage });
      expect(res.statusCode).toBe(401);
      expect(json(res).code).toBe('unauthorized');
    }
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs })).statusCode).toBe(200);

    // Forging Sec-Fetch-Site does not open a way to guess tokens: wrong tokens count as always.
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) {
      await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { ...ownPage, authorization: `Bearer guess-${i}` } });
    }
    const blocked = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { authorization: 'Bearer one-more-guess' } });
    expect(blocked.statusCode).toBe(401);
    expect(json(blocked).code).toBe('auth_blocked');
  });

  it('clients that are not browsers (no Sec-Fetch-*) are counted as before', async () => {
    const t = await bench();
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) {
      expect((await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true })).statusCode).toBe(401);
    }
    expect(json(await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true })).code).toBe('auth_blocked');
  });

  it('/healthz stays public and a cross-site request to it does not count either', async () => {
    const t = await bench();
    for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) {
      expect((await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true, headers: IMG })).statusCode).toBe(200);
    }
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs })).statusCode).toBe(200);
  });
});
