import { afterEach, describe, expect, it } from 'vitest';
import { Authenticator, CREDENTIALS_REQUIRED, readCredentials } from '../../src-main/api/auth';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonBodyParser, problemFromFastifyError, sendProblem } from '../../src-main/api/problem-reply';
import { ProblemError } from '../../src-main/app/problem-error';

/** Error messages say what is actually wrong (issue: misleading errors). */

describe('authentication messages', () => {
  const auth = new Authenticator({ apiTokens: 'default:tok-default-0123456789' });
  const decide = (authorization: string) => auth.authenticate(`10.0.0.${Math.floor(Math.random() * 250)}`, readCredentials({ authorization }));

  it('a token sent without its scheme is named as such, not as missing credentials', () => {
    const d = decide('tok-default-0123456789');
    expect(d).toMatchObject({ ok: false, reason: 'missing' });
    expect(!d.ok && d.reason !== 'blocked' && d.message).toContain('has no scheme');
    expect(!d.ok && d.reason !== 'blocked' && d.message).toContain('Bearer <token>');
  });

  it('another scheme, and Bearer without a token, each say so', () => {
    const basic = decide('Basic dXNlcjpwYXNz');
    expect(!basic.ok && basic.reason !== 'blocked' && basic.message).toContain('scheme "Basic" is not supported');
    const empty = decide('Bearer');
    expect(!empty.ok && empty.reason !== 'blocked' && empty.message).toContain('carries no token');
  });

  it('no header at all still asks for credentials; a wrong token is invalid; a right one passes', () => {
    const none = auth.authenticate('10.1.0.1', readCredentials({}));
    expect(!none.ok && none.reason !== 'blocked' && none.message).toBe(CREDENTIALS_REQUIRED);
    const wrong = decide('Bearer nope');
    expect(wrong).toMatchObject({ ok: false, reason: 'invalid', message: 'invalid tenant/token combination' });
    expect(decide('bearer tok-default-0123456789')).toEqual({ ok: true, tenantId: 'default' });
  });
});

describe('a "__proto__" key in a JSON body', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  // The parser as the API registers it, with the API's problem mapping, in a bare fastify.
  async function post(payload: string) {
    app = Fastify();
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser);
    app.setErrorHandler((err, _req, reply) => {
      const problem = err instanceof ProblemError ? err : problemFromFastifyError(err as { code?: string; statusCode?: number; message: string });
      if (!problem) return reply.code(500).send({ unexpected: String(err) });
      return sendProblem(reply, problem);
    });
    app.post('/echo', async (req) => ({ got: req.body }));
    return app.inject({ method: 'POST', url: '/echo', payload, headers: { 'content-type': 'application/json' } });
  }

  it('is refused as such, not called invalid JSON', async () => {
    for (const payload of ['{"backend_url":"http://ok","__proto__":{"admin":true}}', '{"a":{"constructor":{"prototype":{"x":1}}}}']) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const body = JSON.parse(res.body) as { code: string; detail: string };
      expect(body.code).toBe('bad_request');
      expect(body.detail).toMatch(/"__proto__"|"constructor"/);
      expect(body.detail).not.toContain('not valid JSON');
      await app?.close();
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('broken JSON is still called broken, and a plain "constructor" string key is fine', async () => {
    const broken = await post('{"a":');
    expect(JSON.parse(broken.body)).toMatchObject({ status: 400, code: 'invalid_json' });
    await app?.close();
    const fine = await post('{"constructor":"x","note":"__proto__ in a value is just text"}');
    expect(fine.statusCode).toBe(200);
    expect(JSON.parse(fine.body)).toEqual({ got: { constructor: 'x', note: '__proto__ in a value is just text' } });
  });
});
