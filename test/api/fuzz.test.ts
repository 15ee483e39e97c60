import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { API_PATHS, JOB_ROUTES } from '../../shared';
import { bodies } from '../helpers/handlers';
import { TOKENS, json, makeBench, removeDir, type TestBench } from '../helpers/bench';

/** mulberry32: a small seeded PRNG so a failure replays exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 400);

describe(`fuzz (seed ${SEED}, ${REQUESTS} requests)`, () => {
  let t: TestBench;
  afterAll(async () => {
    await t.close().catch(() => undefined);
    await removeDir(t.dir);
  });

  it('never answers 5xx, keeps serving, and leaves a readable store', { timeout: 120_000 }, async () => {
    t = await makeBench();
    const rnd = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
    const chance = (p: number) => rnd() < p;
    const knownIds: string[] = [];

    const strings = ['', ' ', 'ok', 'hang', 'llama3:8b', 'http://ok:1', 'ünïcödé 🚀', '\u0000', '\u202e', '../../etc/passwd', '%00', 'a'.repeat(5000), '{"a":1}', 'true', '-1', '1e309', '__proto__'];
    const keys = ['backend_url', 'question', 'model', 'agent', 'marketplace', 'max_dph', 'min_dph', 'reliability', 'template_hash', 'backend_type', 'backend_warmup', 'backend_warmup_timeout', 'kubeconfig', 'marketplace_stop_instance', 'estimated_duration_seconds', 'unknown', '__proto__', 'constructor', ''];

    function value(depth: number): unknown {
      const r = rnd();
      if (depth > 4 || r < 0.3) return pick(strings);
      if (r < 0.45) return pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER, 0.99, 3600]);
      if (r < 0.55) return pick([true, false, null]);
      if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      const obj: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 5); i > 0; i--) obj[pick(keys)] = value(depth + 1);
      return obj;
    }

    function body(): { payload?: string; contentType?: string } {
      const r = rnd();
      if (r < 0.1) return {};
      if (r < 0.35) {
        const base = pick([bodies.llm('ok'), bodies.agent('ok'), bodies.benchmark('ok'), bodies.llm('fail'), bodies.benchmark('steps')]);
        let mutated: Record<string, unknown> = { ...base };
        if (chance(0.5)) mutated[pick(keys)] = value(2);
        if (chance(0.2)) {
          const drop = pick(Object.keys(mutated));
          mutated = Object.fromEntries(Object.entries(mutated).filter(([k]) => k !== drop));
        }
        return { payload: JSON.stringify(mutated), contentType: 'application/json' };
      }
      if (r < 0.6) return { payload: JSON.stringify(value(0)), contentType: pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded']) };
      if (r < 0.7) return { payload: pick(['{', '{"a":', '[1,2', 'nul', '{"a":1}}', '\u00ff\u00fe', '{"__proto__":{"x":1}}', '{"a":1,"a":2}']), contentType: 'application/json' };
      if (r < 0.75) return { payload: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' };
      if (r < 0.78) return { payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) }), contentType: 'application/json' };
      return { payload: pick(strings), contentType: pick(['application/json', 'text/html', 'multipart/form-data; boundary=x', '']) };
    }

    function path(): string {
      const id = knownIds.length > 0 && chance(0.6) ? pick(knownIds) : pick(['x', '..', '%2e%2e', 'a%2Fb', '%zz', '0', 'é', 'x'.repeat(140), 'null', '%00', '-', 'llm-instance']);
      const p = pick([
        API_PATHS.health,
        API_PATHS.estimates,
        API_PATHS.jobs,
        `/v1/jobs/${id}`,
        `/v1/jobs/${id}/cancel`,
        `/v1/jobs/${id}/events`,
        API_PATHS.catalog,
        API_PATHS.llmModels,
        API_PATHS.metricsSummary,
        API_PATHS.openapi,
        ...JOB_ROUTES.map((r) => r.path),
        '/',
        '/v1',
        '/v1/',
        '/v1/jobs/',
        '//v1//jobs',
        '/v1/jobs/a/b/c',
        '/ui/',
        '/v2/jobs',
        '/%',
        '/v1/jobs?',
      ]);
      if (!chance(0.4)) return p;
      const qk = pick(['status', 'kind', 'limit', 'cursor', 'after', 'job_id', 'backend_url', 'backend_type', 'x', '']);
      const qv = pick(['queued', 'benchmark', '0', '1', '-5', '201', 'abc', '%zz', '', 'http://ok:1', 'ollama', 'eyJ4IjoxfQ', 'x'.repeat(600)]);
      return `${p}${p.includes('?') ? '&' : '?'}${qk}=${qv}${chance(0.2) ? `&${qk}=${qv}` : ''}`;
    }

    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      if (i % 50 === 49) t.clock.advance(61_000); // let lockouts clear now and then
      const method = pick(['GET', 'GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
      const url = path();
      const headers: Record<string, string> = {};
      const auth = rnd();
      if (auth < 0.7) headers.authorization = `Bearer ${TOKENS.default}`;
      else if (auth < 0.8) Object.assign(headers, { 'x-api-key': TOKENS.acme, 'x-tenant-id': 'acme' });
      else if (auth < 0.9) headers.authorization = pick(['Bearer', 'Bearer x', 'Basic abc', `bearer ${TOKENS.default}x`, '']);
      if (chance(0.05)) headers.host = pick(['evil.example', 'localhost:1', '[::1]', '']);
      if (chance(0.05)) headers.origin = pick(['null', 'https://evil.example', 'http://localhost:80']);
      if (chance(0.1)) headers['idempotency-key'] = pick(['k1', 'k2', '"quoted"', 'with space', '', 'x'.repeat(300), 'ü']);
      if (chance(0.05)) headers['x-tenant-id'] = pick(['', 'acme', 'nobody', 'a'.repeat(500)]);
      if (chance(0.05)) headers['last-event-id'] = pick(['1', 'abc', '-1']);
      // SSE only where it cannot stay open: HEAD, or a request that never reaches a live job.
      if (chance(0.05) && (method === 'HEAD' || !url.includes('/events'))) headers.accept = 'text/event-stream';
      const b = method === 'GET' || method === 'HEAD' ? (chance(0.05) ? body() : {}) : body();
      if (b.contentType) headers['content-type'] = b.contentType;
      const res = await t.bd.app.inject({
        method: method as 'GET',
        url,
        headers,
        remoteAddress: pick(['127.0.0.1', '127.0.0.2', '127.0.0.3']),
        ...(b.payload !== undefined ? { payload: b.payload } : {}),
      });
      const context = `#${i} ${method} ${url.slice(0, 120)} ${JSON.stringify(headers).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      expect(res.statusCode, context).toBeLessThan(500);
      expect(res.body, context).not.toMatch(/\n\s+at .+:\d+:\d+/);
      if (res.statusCode >= 400 && method !== 'HEAD') expect(String(res.headers['content-type']), context).toMatch(/^application\/problem\+json/);
      if (res.statusCode === 202 && res.headers.location) {
        const id = (json<{ job_id?: string }>(res).job_id ?? '').trim();
        if (id && !knownIds.includes(id)) knownIds.push(id);
      }
    }
    // The run exercised real outcomes, not just one kind of refusal.
    for (const s of [200, 202, 400, 401, 404, 405, 415, 422]) expect(statuses.get(s) ?? 0, `status ${s} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);

    // Still up and consistent.
    t.clock.advance(61_000);
    expect((await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true })).statusCode).toBe(200);
    await t.bd.engine.idle();
    const listed: string[] = [];
    for (const tenant of ['default', 'acme'] as const) {
      let cursor: string | null = null;
      do {
        const res = await t.req({ method: 'GET', url: `/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, tenant });
        expect(res.statusCode).toBe(200);
        const page = json<{ jobs: { job_id: string }[]; next_cursor: string | null }>(res);
        listed.push(...page.jobs.map((j) => j.job_id));
        cursor = page.next_cursor;
      } while (cursor);
    }
    expect(new Set(listed)).toEqual(new Set(knownIds));
    const count = t.bd.store.count();
    expect(count).toBe(knownIds.length);

    // Garbage on a real socket: the server answers or hangs up, and stays up.
    const address = await t.bd.app.listen({ host: '127.0.0.1', port: 0 });
    const port = Number(new URL(address).port);
    const garbage = [
      'GARBAGE\r\n\r\n',
      'GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n',
      `GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
      'POST /v1/jobs/llm-instance HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
      'GET /v1/jobs HTTP/1.0\r\n\r\n',
      Buffer.from(Array.from({ length: 512 }, () => Math.floor(rnd() * 256))).toString('latin1'),
    ];
    for (const raw of garbage) {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end(Buffer.from(raw, 'latin1')));
        let got = '';
        socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
        socket.on('error', () => resolve(got));
        socket.on('close', () => resolve(got));
      });
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
      expect(status < 500, `${raw.slice(0, 60)} → ${answer.slice(0, 200)}`).toBe(true);
    }
    const health = await fetch(`${address}${API_PATHS.health}`);
    expect(health.status).toBe(200);

    // Reopen the data dir: every job is there and none is left queued or running.
    const dir = t.dir;
    await t.close();
    t = await makeBench({ dir, start: true });
    expect(t.bd.store.count()).toBe(count);
    for (const id of knownIds) {
      const job = await t.bd.store.getJob(id);
      expect(job, id).toBeDefined();
      expect(['succeeded', 'failed', 'cancelled']).toContain(job?.status);
    }
  });
});
