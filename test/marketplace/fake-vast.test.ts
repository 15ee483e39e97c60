import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEAR_DOWNLOAD_OFFER, EXTERNAL_OFFER, FAKE_VAST_KEY, NO_DIRECT_PORTS_OFFER, OLLAMA_TEMPLATE_HASH, SMALL_DISK_OFFER, startFakeVast, type FakeVast } from '../fakes/vast';
import { must } from './helpers';

/** The fake's own contract (reference §E.A), exercised with plain fetch. */
let vast: FakeVast;
const auth = { Authorization: `Bearer ${FAKE_VAST_KEY}`, 'Content-Type': 'application/json' };

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth) {
  const res = await fetch(`${vast.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json: json as Record<string, unknown> & { offers: Record<string, unknown>[] }, headers: res.headers };
}

beforeEach(async () => {
  vast = await startFakeVast();
});
afterEach(async () => {
  await vast.close();
});

describe('fake Vast.ai', () => {
  it('searches with operator objects, multi-key order, limit and storage pricing', async () => {
    const r = await call('POST', '/bundles/', {
      verified: { eq: true }, rented: { eq: false }, dph_total: { gte: 0.2, lte: 0.5 }, gpu_name: { in: ['RTX 4090', 'RTX A6000'] },
      geolocation: { notin: ['Vietnam, VN'] }, reliability2: { gt: 0.99 }, num_gpus: { neq: 2 }, gpu_ram: { lt: 50000 },
      order: [['dph_total', 'asc'], ['reliability2', 'desc']], allocated_storage: 72, type: 'on-demand', limit: 2,
    });
    expect(r.status).toBe(200);
    expect(r.json.offers.map((o) => o.id)).toEqual([20000004, 20000003]);
    // 0.29 + 0.15 $/GB/month × 72 GB / 720 h
    expect(must(r.json.offers[0]).dph_total).toBeCloseTo(0.305, 6);
    expect(r.json.offers[0]).toHaveProperty('search.totalHour');
  });

  it('rejects unknown operators and fields with 400 invalid_args', async () => {
    const op = await call('POST', '/bundles', { dph_total: { approx: 1 } });
    expect(op.status).toBe(400);
    expect(op.json).toMatchObject({ success: false, error: 'invalid_args' });
    expect((await call('POST', '/bundles/', { dph_totl: { lte: 1 } })).status).toBe(400);
    expect((await call('POST', '/bundles/', { order: [['dph_total', 'up']] })).status).toBe(400);
  });

  it('answers 401 auth_error for a missing or wrong key on every route', async () => {
    for (const [m, p] of [['POST', '/bundles/'], ['GET', '/instances/'], ['GET', '/users/current/'], ['DELETE', '/instances/1/']] as const) {
      const r = await call(m, p, m === 'POST' ? {} : undefined, { Authorization: 'Bearer nope' });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ success: false, error: 'auth_error', msg: 'Invalid user key' });
    }
  });

  it('rents: needs image or template, disk ≥ 8; merges env; the offer disappears; a taken offer is 404', async () => {
    expect((await call('PUT', '/asks/20000002/', { disk: 20 })).status).toBe(400);
    expect((await call('PUT', '/asks/20000002/', { template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 4 })).status).toBe(400);
    const ok = await call('PUT', '/asks/20000002', { client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40, label: 'benchdesk:j1', env: { OLLAMA_MODEL: 'qwen3:8b', OPEN_BUTTON_TOKEN: 'tok' }, cancel_unavail: true });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ success: true, new_contract: 30000001 });
    const again = await call('PUT', '/asks/20000002/', { template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40 });
    expect(again.status).toBe(404);
    expect(String(again.json.msg)).toMatch(/no_such_ask/);
    const search = await call('POST', '/bundles/', {});
    expect(search.json.offers.map((o) => o.id)).not.toContain(20000002);
    const inst = await call('GET', '/instances/30000001/');
    const env = (inst.json.instances as { extra_env: [string, string][] }).extra_env;
    expect(env).toContainEqual(['OLLAMA_MODEL', 'qwen3:8b']);
    expect(env).toContainEqual(['OPEN_BUTTON_TOKEN', 'tok']);
    expect(env).toContainEqual(['-p 11434:11434', '1']);
  });

  it('walks null → created → loading → running and maps ports only when running', async () => {
    vast.setKnob('trailingWhitespace', true);
    await call('PUT', '/asks/20000003/', { template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40 });
    const seen: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call('GET', '/instances/30000001/');
      const inst = r.json.instances as Record<string, unknown>;
      seen.push(inst.actual_status);
      if (inst.actual_status !== 'running ') expect(inst.ports ?? {}).toEqual({});
      else {
        expect(inst.public_ipaddr).toBe('127.0.0.1\n');
        expect(must((inst.ports as Record<string, unknown[]>)['11434/tcp'])[0]).toEqual({ HostIp: '0.0.0.0', HostPort: '41234' });
      }
    }
    expect(seen).toEqual([null, 'created ', 'loading ', 'running ']);
  });

  it('destroys: then instances is null; a second destroy is 404; the 404 knob', async () => {
    await call('PUT', '/asks/20000003/', { template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40 });
    vast.setKnob('v0ListDeprecated', false);
    expect((await call('GET', '/instances/')).json).toMatchObject({ instances_found: 1 });
    expect((await call('DELETE', '/instances/30000001/', {})).json).toEqual({ success: true });
    expect((await call('GET', '/instances/30000001/')).json).toEqual({ instances: null });
    const twice = await call('DELETE', '/instances/30000001/', {});
    expect(twice.status).toBe(404);
    expect(twice.json).toEqual({ success: false, error: 'not_found', msg: 'Instance not found' });
    vast.setKnob('goneAs', '404');
    expect((await call('GET', '/instances/30000001/')).status).toBe(404);
    expect((await call('GET', '/instances/')).json).toMatchObject({ instances_found: 0, instances: [] });
  });

  it('answers the deprecated v0 list with 410 deprecated_endpoint, and pages v1 by 25 with next_token → after_token', async () => {
    const v0 = await call('GET', '/instances/');
    expect(v0.status).toBe(410);
    expect(v0.json).toMatchObject({ success: false, error: 'deprecated_endpoint' });
    const ids = Array.from({ length: 27 }, (_, i) => vast.seedInstance(i === 26 ? 'benchdesk:x' : `run-${i}`));
    const v1 = (query: string) => fetch(`${vast.url.replace('/api/v0', '/api/v1')}/instances/${query}`, { headers: auth }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const first = await v1('?limit=25');
    expect(first).toMatchObject({ success: true, instances_found: 25, total_instances: 27 });
    expect((first.instances as { id: number }[]).map((i) => i.id)).toEqual(ids.slice(0, 25));
    const second = await v1(`?limit=25&after_token=${String(first.next_token)}`);
    expect((second.instances as { id: number }[]).map((i) => i.id)).toEqual(ids.slice(25));
    expect(second.next_token).toBeNull();
    const labelled = await v1(`?select_filters=${encodeURIComponent(JSON.stringify({ label: { eq: 'benchdesk:x' } }))}`);
    expect((labelled.instances as { id: number }[]).map((i) => i.id)).toEqual([ids[26]]);
    const computed = await fetch(`${vast.url.replace('/api/v0', '/api/v1')}/instances/?select_filters=${encodeURIComponent(JSON.stringify({ dph_total: { lte: 1 } }))}`, { headers: auth });
    expect(computed.status).toBe(400);
  });

  it('offers a job cannot use are filterable: no direct port, external, small disk; a $40/TB host', async () => {
    const all = await call('POST', '/bundles/', { limit: 100 });
    const byId = new Map(all.json.offers.map((o) => [o.id, o]));
    expect(byId.get(NO_DIRECT_PORTS_OFFER)).toMatchObject({ direct_port_count: 0 });
    expect(byId.get(EXTERNAL_OFFER)).toMatchObject({ external: true });
    expect(byId.get(SMALL_DISK_OFFER)).toMatchObject({ disk_space: 16 });
    expect(byId.get(DEAR_DOWNLOAD_OFFER)).toMatchObject({ inet_down_cost: 0.04, internet_down_cost_per_tb: 40 });
    const usable = await call('POST', '/bundles/', { direct_port_count: { gte: 1 }, external: { eq: false }, disk_space: { gte: 41 }, limit: 100 });
    const ids = usable.json.offers.map((o) => o.id);
    for (const id of [NO_DIRECT_PORTS_OFFER, EXTERNAL_OFFER, SMALL_DISK_OFFER]) expect(ids).not.toContain(id);
    expect(ids).toContain(DEAR_DOWNLOAD_OFFER);
  });

  it('a revoked key is answered 404 auth_error; a key sees only its account\'s machines', async () => {
    const mine = vast.seedInstance('benchdesk:a');
    vast.addKey('other-account-key', 'other');
    const other = { ...auth, Authorization: 'Bearer other-account-key' };
    expect((await call('GET', `/instances/${mine}/`, undefined, other)).json).toEqual({ instances: null });
    expect((await call('DELETE', `/instances/${mine}/`, {}, other)).status).toBe(404);
    vast.addKey('rotated-key');
    expect((await call('GET', `/instances/${mine}/`, undefined, { ...auth, Authorization: 'Bearer rotated-key' })).json.instances).toMatchObject({ id: mine });
    vast.revokeKey(FAKE_VAST_KEY);
    const revoked = await call('DELETE', `/instances/${mine}/`, {});
    expect(revoked.status).toBe(404);
    expect(revoked.json).toEqual({ success: false, error: 'auth_error', msg: 'Invalid user key' });
    expect(vast.liveInstances().map((i) => i.id)).toEqual([mine]);
  });

  it('can refuse a destroy with 200 {"success": false}', async () => {
    const id = vast.seedInstance('x');
    vast.setKnob('destroyAnswer', 'success_false');
    const r = await call('DELETE', `/instances/${id}/`, {});
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ success: false, error: 'destroy_failed' });
    expect(vast.liveInstances().map((i) => i.id)).toEqual([id]);
  });

  it('answers 429 with the three body variants and no Retry-After', async () => {
    vast.setKnob('rateLimit', { count: 3, variant: 'cycle' });
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('GET', '/users/current/');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBeNull();
      bodies.push(r.text);
    }
    expect(bodies[0]).toBe('API requests too frequent endpoint threshold=2.0');
    expect(JSON.parse(must(bodies[1]))).toHaveProperty('detail');
    expect(JSON.parse(must(bodies[2]))).toMatchObject({ success: false, error: 'rate_limit_exceeded' });
    expect((await call('GET', '/users/current/')).status).toBe(200);
  });

  it('serves templates by hash_id and the current user, and records calls', async () => {
    const q = encodeURIComponent(JSON.stringify({ hash_id: { eq: OLLAMA_TEMPLATE_HASH } }));
    const t = await call('GET', `/template/?select_filters=${q}`);
    expect(t.json).toMatchObject({ success: true, templates_found: 1, templates: [{ hash_id: OLLAMA_TEMPLATE_HASH, name: 'Ollama' }] });
    expect((await call('GET', '/users/current')).json).toMatchObject({ id: 123456, credit: 25 });
    expect(vast.calls.map((c) => c.endpoint)).toEqual(['template', 'user']);
    expect(must(vast.calls[0]).query.select_filters).toContain(OLLAMA_TEMPLATE_HASH);
    expect(must(vast.calls[0]).headers.authorization).toBe(`Bearer ${FAKE_VAST_KEY}`);
  });
});
