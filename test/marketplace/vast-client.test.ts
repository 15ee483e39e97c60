import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MarketplaceAuthError, MarketplaceError, MarketplaceRateLimitError, MarketplaceResponseError } from '../../src-main/marketplace/errors';
import { VastClient, type RetryInfo } from '../../src-main/marketplace/vast-client';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
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
    const offers = await client.searchOffers({ minDph: 0.1, maxDph: 0.5, minReliability: 0.99, minGpuTotalRamMb: 24000, allocatedStorageGb: 41 });
    expect(offers.map((o) => o.id)).toEqual([20000002, 20000004, 20000003, 20000005, 20000006]);
    expect(offers[0]).toMatchObject({ gpu_name: 'RTX 3090', num_gpus: 1, gpu_ram: 24576, reliability2: 0.9962, geolocation: 'Texas, US' });
    const call = must(vast.calls[0]);
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/api/v0/bundles/');
    expect(call.headers.authorization).toBe(`Bearer ${FAKE_VAST_KEY}`);
    expect(call.body).toMatchObject({ type: 'on-demand', allocated_storage: 41, rented: { eq: false }, verified: { eq: true }, reliability2: { gte: 0.99 } });
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
    expect(await client.listInstances()).toHaveLength(1);
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

  it.each(['text', 'detail', 'json'] as const)('retries a 429 (%s body, no Retry-After) and succeeds', async (variant) => {
    vast.setKnob('rateLimit', { count: 2, variant });
    const retries: RetryInfo[] = [];
    const client = clientFor(vast, { onRetry: (r) => retries.push(r) });
    expect(await client.currentUser()).toMatchObject({ id: 123456 });
    expect(retries.map((r) => r.reason)).toEqual(['HTTP 429', 'HTTP 429']);
    expect(retries.map((r) => r.delayMs)).toEqual([5, 7.5]);
  });

  it('gives up on 429 after maxAttempts, even for a rent', async () => {
    vast.setKnob('rateLimit', { count: 100, variant: 'cycle' });
    const client = clientFor(vast);
    const err = await rent(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketplaceRateLimitError);
    expect((err as Error).message).toMatch(/PUT \/asks\/20000003\/.*4 attempts/);
    expect(vast.callsTo('asks')).toHaveLength(4);
  });

  it('retries 502/503/504 for idempotent calls only', async () => {
    const client = clientFor(vast);
    vast.setKnob('failNext', { count: 2, status: 503 });
    expect(await client.listInstances()).toEqual([]);
    expect(vast.callsTo('list')).toHaveLength(3);
    vast.setKnob('failNext', { count: 1, status: 502, endpoints: ['asks'] });
    await expect(rent(client)).rejects.toMatchObject({ status: 502, code: 'upstream_unavailable' });
    expect(vast.callsTo('asks')).toHaveLength(1);
  });

  it('times out per attempt and retries idempotent calls', async () => {
    vast.setKnob('latencyMs', 300);
    const client = clientFor(vast, { timeoutMs: 50, retry: { maxAttempts: 2, initialDelayMs: 5, jitter: 0 } });
    const err = await client.listInstances().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', endpoint: 'GET /instances/' });
    expect((err as Error).message).toMatch(/timed out after 50 ms/);
    expect(vast.callsTo('list')).toHaveLength(2);
  });

  it('maps a refused connection to a network error', async () => {
    const port = vast.port;
    await vast.close();
    const client = new VastClient({ baseUrl: `http://127.0.0.1:${port}/api/v0`, apiKey: FAKE_VAST_KEY, retry: { maxAttempts: 2, initialDelayMs: 1 } });
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
    const client = new VastClient({ baseUrl: 'http://example.test/api/v0', apiKey: 'k', fetch: fakeFetch, retry: { initialDelayMs: 5, jitter: 0 }, onRetry: (r) => delays.push(r.delayMs) });
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
