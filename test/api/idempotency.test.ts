import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { IDEMPOTENCY_RETENTION_MS } from '../../src-main/app/service';
import { bodies } from '../helpers/handlers';
import { json, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';

let t: TestBench;
beforeEach(async () => {
  t = await makeBench();
});
afterEach(async () => {
  await t.close();
  await removeDir(t.dir);
});

const create = (url: string, payload: Record<string, unknown>, key?: string, tenant: 'default' | 'acme' = 'default') =>
  t.req({ method: 'POST', url, payload, tenant, ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}) });

async function countJobs(tenant: 'default' | 'acme' = 'default'): Promise<number> {
  const page = await t.bd.store.listJobs({ tenant_id: tenant, limit: 200 });
  return page.jobs.length;
}

describe('Idempotency-Key', () => {
  it('a replay returns the same job_id with Idempotent-Replayed: true and does not run the job again', async () => {
    const first = await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'key-1');
    expect(first.statusCode).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const id = json<{ job_id: string }>(first).job_id;
    await waitForStatus(t.bd, id, 'succeeded');

    // same body, keys in another order and with a default spelled out: same request as validated
    const replay = await create('/v1/jobs/llm-instance', { backend_warmup: true, ...bodies.llm('ok') }, 'key-1');
    expect(replay.statusCode).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(API_PATHS.job(id));
    expect(json(replay)).toEqual({ job_id: id, status: 'accepted' });

    // the quoted (RFC 8941 sf-string) form is the same key
    const quoted = await create('/v1/jobs/llm-instance', bodies.llm('ok'), '"key-1"');
    expect(json(quoted)).toEqual({ job_id: id, status: 'accepted' });
    expect(quoted.headers['idempotent-replayed']).toBe('true');

    await t.bd.engine.idle();
    expect(t.recorder.runs.get(id)).toBe(1);
    expect(t.recorder.started).toEqual([id]);
    expect(await countJobs()).toBe(1);
  });

  it('aliases share their kind: a replay through a deprecated alias returns the original job', async () => {
    const first = json<{ job_id: string }>(await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'alias-key'));
    for (const alias of ['/v1/jobs/llmserver-instance', '/v1/jobs/llmserver']) {
      const replay = await create(alias, bodies.llm('ok'), 'alias-key');
      expect(replay.statusCode).toBe(202);
      expect(json(replay)).toEqual({ job_id: first.job_id, status: 'accepted' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers.deprecation).toBe('true');
    }
    // another kind has its own scope
    const other = await create('/v1/jobs/agentic-agent', bodies.agent('ok'), 'alias-key');
    expect(other.statusCode).toBe(202);
    expect(json<{ job_id: string }>(other).job_id).not.toBe(first.job_id);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
  });

  it('the same key with another body is a 422 and creates nothing', async () => {
    const first = await create('/v1/jobs/benchmark', bodies.benchmark('ok'), 'k');
    expect(first.statusCode).toBe(202);
    const other = await create('/v1/jobs/benchmark', { ...bodies.benchmark('ok'), model: 'other:1b' }, 'k');
    expect(other.statusCode).toBe(422);
    expect(json(other)).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect(await countJobs()).toBe(1);
  });

  it('an invalid body with a used key is still a validation 422, not a replay', async () => {
    await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'k2');
    const bad = await create('/v1/jobs/llm-instance', { nope: true }, 'k2');
    expect(bad.statusCode).toBe(422);
    expect(json(bad).code).toBe('validation_failed');
  });

  it('concurrent first requests with one key make exactly one job (losers: 409 in flight or the replay)', async () => {
    const n = 8;
    const results = await Promise.all(Array.from({ length: n }, () => create('/v1/jobs/agentic-agent', bodies.agent('ok'), 'race-key')));
    const accepted = results.filter((r) => r.statusCode === 202);
    const conflicts = results.filter((r) => r.statusCode === 409);
    expect(accepted.length + conflicts.length).toBe(n);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(accepted.map((r) => json<{ job_id: string }>(r).job_id));
    expect(ids.size).toBe(1);
    expect(accepted.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const c of conflicts) {
      expect(json(c)).toMatchObject({ code: 'idempotency_in_flight', status: 409 });
      expect(c.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    await t.bd.engine.idle();
    expect(await countJobs()).toBe(1);
    const [id] = [...ids];
    expect(t.recorder.runs.get(id ?? '')).toBe(1);
    // once settled, a retry is a replay
    const retry = await create('/v1/jobs/agentic-agent', bodies.agent('ok'), 'race-key');
    expect(json(retry)).toEqual({ job_id: id, status: 'accepted' });
  });

  it('concurrent first requests over real HTTP make exactly one job', async () => {
    const address = await t.bd.app.listen({ host: '127.0.0.1', port: 0 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${address}/v1/jobs/benchmark`, {
          method: 'POST',
          headers: { authorization: `Bearer tok-default-0123456789`, 'content-type': 'application/json', 'idempotency-key': 'http-race' },
          body: JSON.stringify(bodies.benchmark('ok')),
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    const ids = new Set<string>();
    for (const r of results) if (r.status === 202) ids.add(((await r.json()) as { job_id: string }).job_id);
    expect(ids.size).toBe(1);
    await t.bd.engine.idle();
    expect(await countJobs()).toBe(1);
  });

  it('keys are kept 24 h: after that the same key makes a new job', async () => {
    const first = json<{ job_id: string }>(await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'day-key'));
    t.clock.advance(IDEMPOTENCY_RETENTION_MS - 60_000);
    const replay = await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'day-key');
    expect(json(replay)).toEqual({ job_id: first.job_id, status: 'accepted' });
    t.clock.advance(60_001);
    const fresh = await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'day-key');
    expect(fresh.statusCode).toBe(202);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    const freshId = json<{ job_id: string }>(fresh).job_id;
    expect(freshId).not.toBe(first.job_id);
    // and the new record is the one replayed from now on; another body after expiry is allowed too
    expect(json(await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'day-key'))).toEqual({ job_id: freshId, status: 'accepted' });
    await t.bd.engine.idle();
    expect(await countJobs()).toBe(2);
  });

  it('keys survive a restart', async () => {
    const first = json<{ job_id: string }>(await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'durable-key'));
    await waitForStatus(t.bd, first.job_id, 'succeeded');
    const dir = t.dir;
    await t.close();
    t = await makeBench({ dir });
    const replay = await create('/v1/jobs/llm-instance', bodies.llm('ok'), 'durable-key');
    expect(json(replay)).toEqual({ job_id: first.job_id, status: 'accepted' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await create('/v1/jobs/llm-instance', bodies.llm('fail'), 'durable-key')).statusCode).toBe(422);
  });

  it('several Idempotency-Key headers are a 400', async () => {
    const res = await t.bd.app.inject({
      method: 'POST',
      url: '/v1/jobs/llm-instance',
      payload: bodies.llm('ok'),
      headers: { authorization: 'Bearer tok-default-0123456789', 'idempotency-key': ['a', 'b'] },
    });
    expect(res.statusCode).toBe(400);
    expect(json(res).code).toBe('bad_request');
  });
});
