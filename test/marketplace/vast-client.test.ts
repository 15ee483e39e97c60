import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MarketplaceAuthError, MarketplaceError, MarketplaceRateLimitError, MarketplaceResponseError } from '../../src-main/marketplace/errors';
import { DEFAULT_CREATE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, VastClient, type FieldFilter, type RetryInfo } from '../../src-main/marketplace/vast-client';
import { EXTERNAL_OFFER, FAKE_VAST_KEY, NO_DIRECT_PORTS_OFFER, OLLAMA_TEMPLATE_HASH, PRIVATE_TEMPLATE_HASH, PYTORCH_TEMPLATE_HASH, SMALL_DISK_OFFER, startFakeVast, type FakeVast } from '../fakes/vast';
import { clientFor, expectKeyOnlyInHeader, must } from './helpers';

let vast: FakeVast;
beforeEach(async () => {
  vast = await startFakeVast();
});
afterEach(async () => {
  expectKeyOnlyInHeader(vast);
  await vast.close();
});

const rent = (client: VastClient, offerId = 20000003) =>
  client.rentOffer(offerId, { templateHashId: OLLAMA_TEMPLATE_HASH, diskGb: 41, label: 'benchdesk:job-1', env: { OLLAMA_MODEL: 'llama3.1:8b' } });

describe('VastClient against the fake', () => {
  it('searches offers with the Bearer header, trailing-slash paths and a validated result', async () => {
    const client = clientFor(vast);
    const offers = await client.searchOffers({ minDph: 0.05, maxDph: 0.5, minReliability: 0.99, minGpuTotalRamMb: 24000, allocatedStorageGb: 41, minDiskGb: 41 });
    // The external host ($0.10) and the one with a 16 GB disk ($0.11) are cheaper, and filtered out by the search.
    expect(offers.map((o) => o.id)).toEqual([20000002, 20000004, 20000003, 20000005, 20000006]);
    expect(offers[0]).toMatchObject({ gpu_name: 'RTX 3090', num_gpus: 1, gpu_ram: 24576, reliability2: 0.9962, geolocation: 'Texas, US', direct_port_count: 42 });
    const call = must(vast.calls[0]);
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/api/v0/bundles/');
    expect(call.headers.authorization).toBe(`Bearer ${FAKE_VAST_KEY}`);
    expect(call.body).toMatchObject({
      type: 'on-demand', allocated_storage: 41, rented: { eq: false }, verified: { eq: true }, reliability: { gte: 0.99 },
      external: { eq: false }, direct_port_count: { gte: 1 }, disk_space: { gte: 41 },
    });
    expect(offers.map((o) => o.id)).not.toContain(EXTERNAL_OFFER);
    expect(offers.map((o) => o.id)).not.toContain(SMALL_DISK_OFFER);
    const small = await client.searchOffers({ maxDph: 0.1, allocatedStorageGb: 41 });
    expect(small.map((o) => o.id)).not.toContain(NO_DIRECT_PORTS_OFFER);
  });

  it('skips one malformed offer with a warning instead of failing the whole search', async () => {
    vast.setKnob('malformedOffers', [20000002]);
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    const client = clientFor(vast, { onWarning: (message, fields) => warnings.push({ message, fields }) });
    const offers = await client.searchOffers({ minDph: 0.05, maxDph: 0.5, minReliability: 0.99, minGpuTotalRamMb: 24000, minDiskGb: 41 });
    expect(offers.map((o) => o.id)).toEqual([20000004, 20000003, 20000005, 20000006]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ message: 'skipped a malformed offer from the marketplace', fields: { offer_id: 20000002 } });
    expect(String(warnings[0]?.fields.problem)).toMatch(/gpu_name|dph_total/);
  });

  it('rents, shows, lists and destroys; instances:null after destroy reads as null', async () => {
    const client = clientFor(vast);
    const { instanceId } = await rent(client);
    expect(instanceId).toBe(30000001);
    expect(must(vast.callsTo('asks')[0]).body).toEqual({
      client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 41, label: 'benchdesk:job-1', env: { OLLAMA_MODEL: 'llama3.1:8b' }, cancel_unavail: true,
    });
    expect(must(vast.callsTo('asks')[0]).path).toBe('/api/v0/asks/20000003/');
    const first = await client.showInstance(instanceId);
    expect(first).toMatchObject({ id: instanceId, actual_status: null, label: 'benchdesk:job-1' });
    expect(first?.ports ?? null).toBeNull();
    // The list goes through v1: the deprecated v0 list answers 410 (the fake's default, as on some accounts).
    expect(await client.listInstances()).toHaveLength(1);
    expect(vast.callsTo('list')).toHaveLength(0);
    expect(await client.destroyInstance(instanceId)).toMatchObject({ success: true });
    expect(await client.showInstance(instanceId)).toBeNull();
    await expect(client.destroyInstance(instanceId)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    vast.setKnob('goneAs', '404');
    await expect(client.showInstance(instanceId)).rejects.toMatchObject({ status: 404 });
  });

  it('trims stray whitespace and reads HostPort as a string', async () => {
    vast.setKnob('trailingWhitespace', true);
    vast.setKnob('pollsPerPhase', { scheduling: 0, created: 0, loading: 0 });
    const client = clientFor(vast);
    const { instanceId } = await rent(client);
    const inst = await client.showInstance(instanceId);
    expect(inst).toMatchObject({ actual_status: 'running', public_ipaddr: '127.0.0.1', label: 'benchdesk:job-1' });
    expect(inst?.ports?.['11434/tcp']?.[0]?.HostPort).toBe('41234');
  });

  it('finds templates by hash and reads the current user', async () => {
    const client = clientFor(vast);
    expect(await client.getTemplateByHash(OLLAMA_TEMPLATE_HASH)).toMatchObject({ id: 334548, name: 'Ollama', image: 'vastai/ollama' });
    expect(await client.getTemplateByHash('doesnotexist')).toBeNull();
    expect(JSON.parse(must(must(vast.callsTo('template')[0]).query.select_filters))).toEqual({ hash_id: { eq: OLLAMA_TEMPLATE_HASH } });
    expect(await client.currentUser()).toMatchObject({ id: 123456, credit: 25 });
  });

  it('searches templates with the operator filters (all columns), recommended ones or by exact name', async () => {
    const client = clientFor(vast);
    const recommended = await client.searchTemplates({ recommended: { eq: true } });
    expect(recommended.map((t) => t.hash_id)).toContain(PYTORCH_TEMPLATE_HASH);
    expect(recommended.map((t) => t.hash_id)).not.toContain(PRIVATE_TEMPLATE_HASH);
    expect(recommended.find((t) => t.hash_id === PYTORCH_TEMPLATE_HASH)).toMatchObject({ name: 'PyTorch (Vast)', recommended: true, count_created: 98765 });
    const call = must(vast.callsTo('template')[0]);
    expect(call.path).toBe('/api/v0/template/');
    expect(JSON.parse(must(call.query.select_cols))).toEqual(['*']);
    expect(JSON.parse(must(call.query.select_filters))).toEqual({ recommended: { eq: true } });
    expect(await client.searchTemplates({ name: { eq: 'Ollama (team)' } })).toMatchObject([{ hash_id: PRIVATE_TEMPLATE_HASH, recommended: false }]);
    expect(await client.searchTemplates({ name: { eq: 'ollama (team)' } })).toEqual([]);
    // A field the marketplace does not filter on is its 400, not an empty answer.
    await expect(client.searchTemplates({ colour: { eq: 'blue' } })).rejects.toMatchObject({ status: 400 });
  });

  it('a rejected key is a MarketplaceAuthError naming VAST_API_KEY, never echoing the key', async () => {
    const secret = 'wrong-key-abc123';
    const client = new VastClient({ baseUrl: vast.url, apiKey: secret });
    const err = await client.currentUser().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceAuthError);
    expect(err).toMatchObject({ status: 401, code: 'auth', endpoint: 'GET /users/current/' });
    expect((err as Error).message).toMatch(/VAST_API_KEY/);
    expect((err as Error).message).toMatch(/Invalid user key/);
    expect((err as Error).message).not.toContain(secret);
    expect(vast.calls).toHaveLength(1); // auth errors are not retried
    expectKeyOnlyInHeader(vast, secret);
  });

  it.each(['text', 'detail', 'json'] as const)('retries a 429 (%s body, no Retry-After) after the route\'s penalty, and succeeds', async (variant) => {
    vast.setKnob('rateLimit', { count: 2, variant });
    const retries: RetryInfo[] = [];
    const client = clientFor(vast, { onRetry: (r) => retries.push(r), pacing: { routes: { user: { intervalMs: 0, penaltyMs: 5 } } } });
    expect(await client.currentUser()).toMatchObject({ id: 123456 });
    expect(retries).toEqual([
      { endpoint: 'GET /users/current/', attempt: 1, delayMs: 5, reason: 'HTTP 429' },
      { endpoint: 'GET /users/current/', attempt: 2, delayMs: 5, reason: 'HTTP 429' },
    ]);
    const [first, , third] = vast.callsTo('user');
    expect(must(third).at - must(first).at).toBeGreaterThanOrEqual(10);
  });

  it("paces creates after a 429 (no Retry-After): the next create waits the penalty (Vast's 12 s, scaled down here)", async () => {
    vast.setKnob('rateLimit', { count: 1, variant: 'detail', endpoints: ['asks'] });
    const retries: RetryInfo[] = [];
    const client = clientFor(vast, { onRetry: (r) => retries.push(r), pacing: { routes: { create: { intervalMs: 45, penaltyMs: 120 } } } });
    expect(client.pacer.pacing('create')).toEqual({ intervalMs: 45, penaltyMs: 120, serial: true });
    expect(await rent(client)).toEqual({ instanceId: 30000001 });
    const [first, second] = vast.callsTo('asks');
    expect(first?.status).toBe(429);
    expect(second?.status).toBe(200);
    expect(must(second).at - must(first).at).toBeGreaterThanOrEqual(120);
    expect(retries).toEqual([{ endpoint: 'PUT /asks/20000003/', attempt: 1, delayMs: 120, reason: 'HTTP 429' }]);
  });

  it("uses Vast's documented thresholds by default: creates one at a time, 5 s apart (4.5 s and a margin), 12 s after a 429", () => {
    const client = new VastClient({ baseUrl: vast.url, apiKey: FAKE_VAST_KEY });
    expect(client.pacer.pacing('create')).toEqual({ intervalMs: 5_000, penaltyMs: 12_000, serial: true });
    expect(client.pacer.pacing('show')).toMatchObject({ intervalMs: 2_000 });
    expect(client.pacer.pacing('destroy')).toMatchObject({ intervalMs: 3_000 });
  });

  it('gives up on a rate-limited create after a bounded number of attempts', async () => {
    vast.setKnob('rateLimit', { count: 100, variant: 'cycle', endpoints: ['asks'] });
    const client = clientFor(vast, { createMaxAttempts: 3, pacing: { routes: { create: { intervalMs: 0, penaltyMs: 20 } } } });
    const err = await rent(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceRateLimitError);
    expect((err as Error).message).toMatch(/PUT \/asks\/20000003\/.*3 attempts/);
    const calls = vast.callsTo('asks');
    expect(calls).toHaveLength(3);
    for (let i = 1; i < calls.length; i++) expect(must(calls[i]).at - must(calls[i - 1]).at).toBeGreaterThanOrEqual(20);
  });

  it('gives up on 429 after maxAttempts with bounded time for other calls', async () => {
    vast.setKnob('rateLimit', { count: 100, variant: 'cycle' });
    const client = clientFor(vast);
    const err = await client.currentUser().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceRateLimitError);
    expect((err as Error).message).toMatch(/GET \/users\/current\/.*4 attempts/);
    expect(vast.callsTo('user')).toHaveLength(4);
  });

  it('8 creates at once against a service that allows one per interval, with a penalty when crossed: all succeed, one at a time', async () => {
    // Vast: one create per 4.5 s, then 12 s of 429s; here a service stricter than the client's
    // spacing, scaled down 100 times. Each answer takes a moment, so overlapping creates would show.
    vast.setKnob('rateLimits', { asks: { intervalMs: 120, penaltyMs: 120 } });
    vast.setKnob('latencyMs', 5);
    const client = clientFor(vast, { pacing: { routes: { create: { intervalMs: 45, penaltyMs: 120 } } } });
    const offers = [20000001, 20000002, 20000003, 20000004, 20000005, 20000006, 20000007, 20000008];
    const rented = await Promise.all(offers.map((id) => rent(client, id)));
    expect(new Set(rented.map((r) => r.instanceId)).size).toBe(8);
    const creates = vast.callsTo('asks');
    // Every offer was rented in the end, whatever was refused on the way.
    expect(new Set(creates.filter((c) => c.status === 200).map((c) => c.path)).size).toBe(8);
    // Serialised per key: each create was sent after the one before it was answered.
    for (let i = 1; i < creates.length; i++) expect(must(creates[i]).at).toBeGreaterThanOrEqual(must(must(creates[i - 1]).answeredAt));
  });

  it("a 200 {success: false, msg} on create is Vast refusing, in its own words (not a lost answer)", async () => {
    vast.setKnob('rentRefused', { offers: 'all', error: 'insufficient_credit', msg: 'Your account balance is too low to rent this machine' });
    const client = clientFor(vast);
    const err = await rent(client).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'create_refused', status: 200, upstreamError: 'insufficient_credit' });
    expect((err as Error).message).toBe('Vast.ai refused to rent offer 20000003: Your account balance is too low to rent this machine');
    expect(vast.liveInstances()).toHaveLength(0);
  });

  it("accepts the official CLI's base URL form (https://console.vast.ai) and finds v0 and v1 beside it", async () => {
    expect(new VastClient({ baseUrl: 'https://console.vast.ai', apiKey: 'k' })).toMatchObject({ baseUrl: 'https://console.vast.ai/api/v0', v1BaseUrl: 'https://console.vast.ai/api/v1' });
    expect(new VastClient({ baseUrl: 'https://console.vast.ai/', apiKey: 'k' }).baseUrl).toBe('https://console.vast.ai/api/v0');
    expect(new VastClient({ baseUrl: 'https://console.vast.ai/api', apiKey: 'k' }).baseUrl).toBe('https://console.vast.ai/api/v0');
    const root = vast.url.replace(/\/api\/v0$/, '');
    const client = clientFor(vast, { baseUrl: root });
    vast.seedInstance('benchdesk:aaaaaaaaaaaa:j');
    expect(await client.listInstances()).toHaveLength(1);
    expect(must(vast.callsTo('list_v1')[0]).path).toBe('/api/v1/instances/');
  });

  it('sends the template as the SDK does (template_id) with its extra_filters; an unknown filter field is a 400 as on the real service', async () => {
    const client = clientFor(vast);
    const template = must(await client.getTemplateByHash(OLLAMA_TEMPLATE_HASH));
    await client.searchOffers({ maxDph: 1, template: { id: template.id, extraFilters: template.extra_filters as Record<string, FieldFilter> } });
    expect(must(vast.callsTo('bundles').at(-1)).body).toMatchObject({ template_id: 334548, cuda_max_good: { gte: 12 } });
    await expect(client.searchOffers({ extraFilters: { colour: { eq: 'blue' } } })).rejects.toMatchObject({ status: 400, code: 'http_error' });
  });

  it('allows 120 s for a call, as the official CLI does (an instance creation is slow on Vast\'s side)', async () => {
    expect(DEFAULT_CREATE_TIMEOUT_MS).toBe(120_000);
    expect(DEFAULT_TIMEOUT_MS).toBe(120_000);
    // Other calls get 100 ms here; the create answers after 400 ms and is still read.
    const client = clientFor(vast, { timeoutMs: 100, retry: { maxAttempts: 1 } });
    vast.setKnob('rentAnswerDelayMs', 400);
    expect(await rent(client)).toEqual({ instanceId: 30000001 });
    vast.setKnob('latencyMs', 400);
    await expect(client.currentUser()).rejects.toMatchObject({ code: 'timeout' });
    vast.setKnob('latencyMs', 0);
  });

  it('keeps offer searches under 10 a minute, and reuses an identical recent answer when asked to', async () => {
    // Vast's pacing (scale 1) turns the search budget on.
    const client = clientFor(vast, { pacing: { scale: 1 } });
    for (let i = 0; i < 9; i++) await client.searchOffers({ maxDph: 1 + i / 100 });
    expect(vast.callsTo('bundles')).toHaveLength(9);
    // A tenth within the minute: refused at once when the caller cannot wait...
    await expect(client.searchOffers({ maxDph: 2 }, { maxWaitMs: 1_000 })).rejects.toMatchObject({ code: 'rate_limited' });
    // ...or held until a slot frees (here: until the caller gives up).
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(client.searchOffers({ maxDph: 2 }, { signal: ac.signal })).rejects.toMatchObject({ code: 'aborted' });
    expect(vast.callsTo('bundles')).toHaveLength(9);
    // An identical search answered moments ago costs nothing.
    expect((await client.searchOffers({ maxDph: 1 }, { maxAgeMs: 30_000 })).length).toBeGreaterThan(0);
    expect(vast.callsTo('bundles')).toHaveLength(9);
  });

  it('counts no searches when pacing is off (scale 0, against a fake): a server under test is not throttled by a budget meant for Vast', async () => {
    const client = clientFor(vast);
    for (let i = 0; i < 12; i++) await client.searchOffers({ maxDph: 1 + i / 100 }, { maxWaitMs: 0 });
    expect(vast.callsTo('bundles')).toHaveLength(12);
  });

  it('lists instances through v1: select_filters, id order, pages of 25 followed with after_token', async () => {
    const client = clientFor(vast);
    const ids = Array.from({ length: 30 }, (_, i) => vast.seedInstance(i % 3 === 0 ? 'benchdesk:aaaaaaaaaaaa:j' : `other-${i}`));
    const all = await client.listInstances();
    expect(all.map((i) => i.id)).toEqual(ids);
    const pages = vast.callsTo('list_v1');
    expect(pages).toHaveLength(2);
    expect(must(pages[0]).path).toBe('/api/v1/instances/');
    expect(must(pages[0]).query).toEqual({ select_filters: '{}', order_by: '[{"col":"id","dir":"asc"}]', limit: '25' });
    expect(must(pages[1]).query.after_token).toBeTruthy();
    expect(vast.callsTo('list')).toHaveLength(0);
    const labelled = await client.listInstances({ labels: ['benchdesk:aaaaaaaaaaaa:j'] });
    expect(labelled.map((i) => i.id)).toEqual(ids.filter((_, i) => i % 3 === 0));
    expect(JSON.parse(must(vast.callsTo('list_v1').at(-1)).query.select_filters ?? '')).toEqual({ label: { eq: 'benchdesk:aaaaaaaaaaaa:j' } });
    await client.listInstances({ labels: ['a', 'b'] });
    expect(JSON.parse(must(vast.callsTo('list_v1').at(-1)).query.select_filters ?? '')).toEqual({ label: { in: ['a', 'b'] } });
  });

  it('a revoked key answered 404 {"error":"auth_error"} is an auth failure, never "not found"', async () => {
    const client = clientFor(vast);
    const { instanceId } = await rent(client);
    vast.revokeKey(FAKE_VAST_KEY);
    for (const call of [() => client.showInstance(instanceId), () => client.destroyInstance(instanceId), () => client.listInstances()]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MarketplaceAuthError);
      expect(err).toMatchObject({ status: 404, code: 'auth' });
      expect((err as Error).message).toMatch(/rejected the API key.*Invalid user key/);
    }
    expect(must(vast.callsTo('destroy')[0]).status).toBe(404);
    expect(vast.liveInstances().map((i) => i.id)).toEqual([instanceId]);
  });

  it('a destroy answered {"success": false} is a refusal, as the official CLI reads it', async () => {
    const client = clientFor(vast);
    const { instanceId } = await rent(client);
    vast.setKnob('destroyAnswer', 'success_false');
    const err = await client.destroyInstance(instanceId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ code: 'http_error', status: 200, upstreamError: 'destroy_failed' });
    expect((err as Error).message).toMatch(/did not destroy instance 30000001 \(success: false: .*could not be destroyed right now/);
  });

  it('retries 502/503/504 for idempotent calls only', async () => {
    const client = clientFor(vast);
    vast.setKnob('failNext', { count: 2, status: 503 });
    expect(await client.listInstances()).toEqual([]);
    expect(vast.callsTo('list_v1')).toHaveLength(3);
    vast.setKnob('failNext', { count: 1, status: 502, endpoints: ['asks'] });
    await expect(rent(client)).rejects.toMatchObject({ status: 502, code: 'upstream_unavailable' });
    expect(vast.callsTo('asks')).toHaveLength(1);
  });

  it('times out per attempt and retries idempotent calls', async () => {
    vast.setKnob('latencyMs', 300);
    const client = clientFor(vast, { timeoutMs: 50, retry: { maxAttempts: 2, initialDelayMs: 5, jitter: 0 } });
    const err = await client.listInstances().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', endpoint: 'GET /api/v1/instances/' });
    expect((err as Error).message).toMatch(/timed out after 50 ms/);
    expect(vast.callsTo('list_v1')).toHaveLength(2);
  });

  it('maps a refused connection to a network error', async () => {
    const port = vast.port;
    await vast.close();
    const client = new VastClient({ baseUrl: `http://127.0.0.1:${port}/api/v0`, apiKey: FAKE_VAST_KEY, retry: { maxAttempts: 2, initialDelayMs: 1 }, pacing: { scale: 0 } });
    const err = await client.listInstances().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'network' });
    expect((err as Error).message).toMatch(/could not reach 127\.0\.0\.1/);
    vast = await startFakeVast(); // for afterEach
  });

  it('stops promptly when the caller aborts', async () => {
    vast.setKnob('latencyMs', 5_000);
    const client = clientFor(vast, { timeoutMs: 10_000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    await expect(client.listInstances({ signal: ac.signal })).rejects.toMatchObject({ code: 'aborted' });
    vast.setKnob('latencyMs', 0);
  });

  it('a surprise shape is a MarketplaceResponseError naming the endpoint', async () => {
    const client = clientFor(vast);
    vast.setKnob('malformed', { bundles: '{"offers": {"0": {"id": 1}}}' });
    const err = await client.searchOffers({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceResponseError);
    expect((err as Error).message).toMatch(/POST \/bundles\/ answered with an unexpected shape \(offers/);
    vast.setKnob('malformed', { template: '<html>maintenance</html>' });
    await expect(client.getTemplateByHash(OLLAMA_TEMPLATE_HASH)).rejects.toThrow(/GET \/template\/ answered 200 with a body that is not JSON/);
    const { instanceId } = await rent(client);
    vast.setKnob('malformed', { show: '{"instance": {}}' });
    await expect(client.showInstance(instanceId)).rejects.toThrow(/GET \/instances\/30000001\/ answered with an unexpected shape/);
  });

  it('honours a Retry-After header if one is ever sent', async () => {
    let n = 0;
    const fakeFetch: typeof fetch = async () => {
      n++;
      return n === 1
        ? new Response('slow down', { status: 429, headers: { 'Retry-After': '0.2' } })
        : new Response(JSON.stringify({ id: 1 }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    };
    const delays: number[] = [];
    const client = new VastClient({ baseUrl: 'http://example.test/api/v0', apiKey: 'k', fetch: fakeFetch, retry: { initialDelayMs: 5, jitter: 0 }, pacing: { scale: 0 }, onRetry: (r) => delays.push(r.delayMs) });
    expect(await client.currentUser()).toMatchObject({ id: 1 });
    expect(delays).toEqual([200]);
  });

  it('reports other HTTP errors with Vast\'s own message and code', async () => {
    const client = clientFor(vast);
    const err = await client.rentOffer(20000003, { templateHashId: OLLAMA_TEMPLATE_HASH, diskGb: 4, label: 'x', env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ status: 400, code: 'http_error', upstreamError: 'invalid_args' });
    expect((err as Error).message).toMatch(/disk must be at least 8 GB/);
  });
});
