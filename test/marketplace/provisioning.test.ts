import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCatalogModel } from '../../src-main/marketplace/catalog';
import type { MarketplaceEvent } from '../../src-main/marketplace/events';
import {
  findLabelledInstances,
  jobLabel,
  rentCheapestFit,
  waitForRunning,
  type RentRequest,
} from '../../src-main/marketplace/provisioning';
import type { VastClient } from '../../src-main/marketplace/vast-client';
import { DEAR_DOWNLOAD_OFFER, NO_PORT_TEMPLATE_HASH, OLD_CUDA_OFFER, OLLAMA_TEMPLATE_HASH, OPEN_TEMPLATE_HASH, defaultOffers, incompatibleOffers, startFakeVast, type FakeVast } from '../fakes/vast';
import { clientFor, expectKeyOnlyInHeader, must } from './helpers';

let vast: FakeVast;
let client: VastClient;
let events: MarketplaceEvent[];
const onEvent = (e: MarketplaceEvent): void => {
  events.push(e);
};
const model = must(resolveCatalogModel('llama3.1:8b'));
const request: RentRequest = { template_hash: OLLAMA_TEMPLATE_HASH, min_dph: 0, max_dph: 1, reliability: 0.99 };
const fastWait = { pollIntervalMs: 5, maxPollIntervalMs: 20, timeoutMs: 5_000 };
/** This test's install id: labels are `benchdesk:<install>:<job>`. */
const INSTALL = 'inst0test0aa';

beforeEach(async () => {
  vast = await startFakeVast();
  client = clientFor(vast);
  events = [];
});
afterEach(async () => {
  expectKeyOnlyInHeader(vast);
  await vast.close();
});

const eventLine = (e: MarketplaceEvent): string => `${e.event}:${e.status}`;

/** Stands in for Vast's Caddy proxy in front of Ollama: 401 without the right bearer token. */
async function startProxiedOllama(token: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="restricted"' }).end('Unauthorized');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('Ollama is running');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('rentCheapestFit + waitForRunning', () => {
  it('happy path: cheapest fit, our env and label, the Ollama URL and the proxy token that works', async () => {
    const token = 'fixed-token-for-test';
    const ollama = await startProxiedOllama(token);
    vast.setKnob('ollamaPort', ollama.port);
    vast.setKnob('trailingWhitespace', true);
    try {
      const rented = await rentCheapestFit({ client, request, model, jobId: 'job-42', installId: INSTALL, onEvent, authToken: token });
      expect(rented).toMatchObject({
        instanceId: 30000001,
        label: `benchdesk:${INSTALL}:job-42`,
        diskGb: 41,
        offer: { id: 20000001, gpu_name: 'RTX 3060' },
        template: { id: 334548, hash_id: OLLAMA_TEMPLATE_HASH, name: 'Ollama' },
        access: { authRequired: true, https: false, exposesPort: true },
      });
      const body = must(vast.callsTo('asks')[0]).body as Record<string, unknown>;
      expect(body).toEqual({
        client_id: 'me',
        template_hash_id: OLLAMA_TEMPLATE_HASH,
        disk: 41,
        label: `benchdesk:${INSTALL}:job-42`,
        env: { OLLAMA_MODEL: 'llama3.1:8b', OPEN_BUTTON_TOKEN: token },
        cancel_unavail: true,
      });
      expect(must(vast.callsTo('bundles')[0]).body).toMatchObject({ gpu_total_ram: { gte: 8000 }, allocated_storage: 41, dph_total: { lte: 1 } });

      const running = await waitForRunning({ client, instanceId: rented.instanceId, authToken: rented.authToken, onEvent, ...fastWait });
      expect(running.backendUrl).toBe(`http://127.0.0.1:${ollama.port}`);
      expect(running.headers).toEqual({ Authorization: `Bearer ${token}` });
      expect(running.polls).toBe(4);
      const res = await fetch(running.backendUrl, { headers: running.headers });
      expect(await res.text()).toBe('Ollama is running');
      expect((await fetch(running.backendUrl)).status).toBe(401);

      expect(events.filter((e) => e.status !== 'info').map(eventLine)).toEqual([
        'marketplace.template_lookup:started',
        'marketplace.template_lookup:ok',
        'marketplace.offer_search:started',
        'marketplace.offer_search:ok',
        'marketplace.instance.create:started',
        'marketplace.instance.create:ok',
        'marketplace.instance.wait_running:started',
        'marketplace.instance.wait_running:ok',
      ]);
      const created = must(events.find((e) => e.event === 'marketplace.instance.create' && e.status === 'ok'));
      expect(created.labels).toMatchObject({ offer_id: 20000001, instance_id: 30000001 });
      expect(created.duration_ms).toBeGreaterThanOrEqual(0);
      expect(events.filter((e) => e.event === 'marketplace.instance.wait_running' && e.status === 'info').map((e) => e.labels?.actual_status)).toEqual([
        'scheduling',
        'created',
        'loading',
      ]);
      // The token is a secret: never in an event.
      expect(JSON.stringify(events)).not.toContain(token);
    } finally {
      await ollama.close();
    }
  });

  it('generates a random proxy token per rent', async () => {
    const a = await rentCheapestFit({ client, request, model, jobId: 'a', installId: INSTALL });
    const b = await rentCheapestFit({ client, request, model, jobId: 'b', installId: INSTALL });
    expect(a.authToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a.authToken).not.toBe(b.authToken);
  });

  it('honours the model VRAM need and breaks price ties by reliability', async () => {
    const big = must(resolveCatalogModel('qwen3:32b'));
    const r1 = await rentCheapestFit({ client, request, model: big, jobId: 'j1', installId: INSTALL });
    expect(r1.offer.id).toBe(20000002); // the 3060 is too small
    const r2 = await rentCheapestFit({ client, request: { ...request, min_dph: 0.25, max_dph: 0.31 }, model: big, jobId: 'j2', installId: INSTALL });
    expect(r2.offer.id).toBe(20000004); // same price as 20000003, more reliable
  });

  it('moves on when the offer is taken (404) or unavailable (410)', async () => {
    vast.setKnob('takenOnRent', [20000001]);
    vast.setKnob('unavailableOnRent', [20000002]);
    const rented = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL, onEvent });
    // Next in total cost for an hour: the $40/TB host (its $0.20 download still beats the $0.29/h cards).
    expect(rented.offer.id).toBe(DEAR_DOWNLOAD_OFFER);
    expect(vast.callsTo('asks').map((c) => c.path)).toEqual(['/api/v0/asks/20000001/', '/api/v0/asks/20000002/', `/api/v0/asks/${DEAR_DOWNLOAD_OFFER}/`]);
    expect(events.filter((e) => e.event === 'marketplace.instance.create').map((e) => e.status)).toEqual(['started', 'error', 'info', 'started', 'error', 'info', 'started', 'ok']);
  });

  it('gives up after a bounded number of taken offers', async () => {
    vast.setKnob('takenOnRent', [20000001, 20000002, DEAR_DOWNLOAD_OFFER, 20000003, 20000004, 20000005, 20000006, 20000007]);
    const err = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL, maxRentAttempts: 3 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'offers_exhausted' });
    expect(vast.callsTo('asks')).toHaveLength(3);
  });

  it('re-searches once when the first list runs out', async () => {
    // A one-offer search returns the lowest hourly price that is usable: the $40/TB host.
    vast.setKnob('takenOnRent', [DEAR_DOWNLOAD_OFFER]);
    const rented = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL, searchLimit: 1 });
    expect(rented.offer.id).toBe(20000001);
    expect(vast.callsTo('bundles')).toHaveLength(2);
  });

  it('fails clearly when the template is unknown, before searching', async () => {
    const err = await rentCheapestFit({ client, request: { ...request, template_hash: 'nosuchhash' }, model, jobId: 'j', installId: INSTALL, onEvent }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'template_not_found' });
    expect((err as Error).message).toMatch(/Template "nosuchhash" was not found/);
    // Said in the form's words, never the API's field name.
    expect((err as Error).message).toMatch(/Check the template: editing a template on Vast.ai gives it a new hash\.$/);
    expect(vast.callsTo('bundles')).toHaveLength(0);
    expect(events.map(eventLine)).toEqual(['marketplace.template_lookup:started', 'marketplace.template_lookup:error']);
    expect(must(events[1]).error_type).toBe('template_not_found');
  });

  it('fails clearly when no offer fits', async () => {
    const huge = must(resolveCatalogModel('llama3.1:405b'));
    const err = await rentCheapestFit({ client, request, model: huge, jobId: 'j', installId: INSTALL }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'no_offers' });
    expect((err as Error).message).toMatch(/reliability ≥ \d+(\.\d)?%, ≥ 253\.9 GB GPU memory/);
    expect((err as Error).message).toMatch(/Raise Max \$\/h, lower the reliability, or pick a smaller model\.$/);
    expect(vast.callsTo('asks')).toHaveLength(0);
  });

  it('rejects a request without template_hash or max_dph', async () => {
    await expect(rentCheapestFit({ client, request: { ...request, template_hash: undefined }, model, jobId: 'j', installId: INSTALL })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'Renting a GPU needs a template (the Vast.ai template the machine starts from)',
    });
    await expect(rentCheapestFit({ client, request: { ...request, max_dph: undefined }, model, jobId: 'j', installId: INSTALL })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'Renting a GPU needs a Max $/h (the most the machine may cost per hour)',
    });
    expect(vast.calls).toHaveLength(0);
  });

  it('publishes port 11434 when the template does not, and sends no token header when auth is off', async () => {
    const noPort = await rentCheapestFit({ client, request: { ...request, template_hash: NO_PORT_TEMPLATE_HASH }, model, jobId: 'a', installId: INSTALL });
    expect((must(vast.callsTo('asks')[0]).body as { env: Record<string, string> }).env['-p 11434:11434']).toBe('1');
    expect(noPort.access.exposesPort).toBe(false);
    const open = await rentCheapestFit({ client, request: { ...request, template_hash: OPEN_TEMPLATE_HASH }, model, jobId: 'b', installId: INSTALL });
    expect(open.access.authRequired).toBe(false);
    const running = await waitForRunning({ client, instanceId: open.instanceId, authToken: null, ...fastWait });
    expect(running.headers).toEqual({});
  });

  it('recovers the instance by label when the rent answer is unreadable', async () => {
    vast.setKnob('rentAnswerOverride', '{"success": true}');
    const rented = await rentCheapestFit({ client, request, model, jobId: 'lost', installId: INSTALL, onEvent });
    expect(rented.instanceId).toBe(30000001);
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(events.some((e) => e.status === 'info' && /found instance 30000001 by its label/.test(e.message ?? ''))).toBe(true);
    expect((await findLabelledInstances(client, [jobLabel(INSTALL, 'lost')])).map((i) => i.id)).toEqual([30000001]);
  });

  it('a cancel while the create runs is reported as a possible lost rent (the lease looks for it by label)', async () => {
    const ac = new AbortController();
    const lost: { label: string; reason: string }[] = [];
    const sink = (e: MarketplaceEvent): void => {
      events.push(e);
      if (e.event === 'marketplace.instance.create' && e.status === 'started') {
        vast.setKnob('latencyMs', 150);
        setTimeout(() => ac.abort(), 30);
      }
    };
    const err = await rentCheapestFit({ client, request, model, jobId: 'cancelled', installId: INSTALL, signal: ac.signal, onEvent: sink, onLostRent: (i) => void lost.push(i) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'aborted' });
    expect(lost).toEqual([{ label: jobLabel(INSTALL, 'cancelled'), reason: 'cancelled while the create ran' }]);
  });

  it('a lost create answer whose machine is not there yet: a few quick looks, then the rent fails and the hunt is handed over', async () => {
    vast.setKnob('rentAnswerLost', true);
    vast.setKnob('rentVisibleAfterMs', 60_000);
    const lost: { label: string; reason: string }[] = [];
    const err = await rentCheapestFit({ client, request, model, jobId: 'lost', installId: INSTALL, lostRent: { lookups: 3, delayMs: 5 }, onLostRent: (i) => void lost.push(i) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'network' });
    expect((err as Error).message).toContain(`keeps looking for its label ${jobLabel(INSTALL, 'lost')}`);
    expect(lost).toHaveLength(1);
    expect(vast.callsTo('list_v1')).toHaveLength(3);
    // Only one create: an answer lost is never a reason to rent a second machine.
    expect(vast.callsTo('asks')).toHaveLength(1);
  });

  it("a 200 {success: false, msg} shows Vast's message and tries the next offer", async () => {
    // The cheapest fitting offer (the 12 GB RTX 3060) is refused.
    vast.setKnob('rentRefused', { offers: [20000001], error: 'insufficient_credit', msg: 'Insufficient credit for this offer' });
    const rented = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL, onEvent });
    expect(vast.callsTo('asks').map((c) => c.path)).toEqual(['/api/v0/asks/20000001/', `/api/v0/asks/${rented.offer.id}/`]);
    expect(rented.offer.id).not.toBe(20000001);
    expect(events.some((e) => e.status === 'info' && e.message === 'Vast.ai refused to rent offer 20000001: Insufficient credit for this offer; trying the next offer')).toBe(true);
    vast.setKnob('rentRefused', { offers: 'all', error: 'insufficient_credit', msg: 'Insufficient credit' });
    const err = await rentCheapestFit({ client, request, model, jobId: 'k', installId: INSTALL }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'create_refused' });
    expect((err as Error).message).toMatch(/^Vast\.ai refused every fitting offer we tried \(4\); the last answer: Vast\.ai refused to rent offer \d+: Insufficient credit$/);
  });

  it("searches only the hosts that can run the template (the SDK's template_id and its extra_filters), and ranks every one returned", async () => {
    await vast.close();
    vast = await startFakeVast({ offers: [...defaultOffers(), ...incompatibleOffers()] });
    client = clientFor(vast);
    const small = must(resolveCatalogModel('llama3.2:3b'));
    const rented = await rentCheapestFit({ client, request, model: small, jobId: 'fit', installId: INSTALL });
    const search = must(vast.callsTo('bundles').at(-1));
    expect(search.body).toMatchObject({ template_id: 334548, cuda_max_good: { gte: 12 }, limit: 1000 });
    // The cheapest 3060 of all runs CUDA 11.8: the template cannot run there, so it is never rented.
    expect(rented.offer.id).not.toBe(OLD_CUDA_OFFER);
    expect(vast.callsTo('asks').map((c) => c.path)).not.toContain(`/api/v0/asks/${OLD_CUDA_OFFER}/`);
  });

  it('keeps polling while running without ports', async () => {
    vast.setKnob('portsDelayPolls', 3);
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const running = await waitForRunning({ client, instanceId, authToken: 't', ...fastWait });
    expect(running.polls).toBe(7);
    expect(running.hostPort).toBe(41234);
  });

  it.each([
    ['exited', /will not start: instance is exited: Error response from daemon/],
    ['offline', /instance is offline/],
    ['unknown', /instance is unknown/],
  ] as const)('ends when the instance is %s (past the boot window for exited/unknown)', async (outcome, message) => {
    vast.setKnob('outcome', outcome);
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const err = await waitForRunning({ client, instanceId, onEvent, ...fastWait, bootWindowMs: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'instance_failed', instanceId });
    expect((err as Error).message).toMatch(message);
    expect(vast.callsTo('show')).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ event: 'marketplace.instance.wait_running', status: 'error', error_type: 'instance_failed' });
  });

  it.each(['exited', 'unknown'] as const)("waits out `%s` right after the create, as the official CLI does, and goes on to running", async (status) => {
    vast.setKnob('bootHiccup', { status, polls: 3 });
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const running = await waitForRunning({ client, instanceId, onEvent, ...fastWait, bootWindowMs: 60_000 });
    expect(running.backendUrl).toBe('http://127.0.0.1:41234');
    expect(events.some((e) => e.status === 'info' && e.labels?.actual_status === status && /waited on/.test(e.message ?? ''))).toBe(true);
  });

  it('a read refused for pacing (429) is not a failure of the machine: it is waited out, never a reason to give it up', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    // Each read answers 429 until the client's retries are spent, five reads in a row.
    vast.setKnob('rateLimit', { count: 20, variant: 'cycle', endpoints: ['show'] });
    const limited = clientFor(vast, { retry: { maxAttempts: 4, initialDelayMs: 1 } });
    const running = await waitForRunning({ client: limited, instanceId, ...fastWait });
    expect(running.backendUrl).toBe('http://127.0.0.1:41234');
    expect(vast.callsTo('show').filter((c) => c.status === 429)).toHaveLength(20);
  });

  it('times out when the instance never becomes ready', async () => {
    vast.setKnob('outcome', 'never_ready');
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const err = await waitForRunning({ client, instanceId, ...fastWait, timeoutMs: 150 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'wait_timeout' });
    expect((err as Error).message).toMatch(/within 0.15 s \(last: Pulling image/);
  });

  it('stops promptly on abort', async () => {
    vast.setKnob('outcome', 'never_ready');
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await waitForRunning({ client, instanceId, signal: ac.signal, pollIntervalMs: 10_000, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'aborted' });
  });

  it('reports an instance that disappears while starting', async () => {
    vast.setKnob('outcome', 'never_ready');
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    await client.showInstance(instanceId);
    await client.destroyInstance(instanceId);
    await expect(waitForRunning({ client, instanceId, ...fastWait })).rejects.toMatchObject({ code: 'instance_gone' });
  });

  it('a revoked key while waiting is an auth failure, not a vanished machine', async () => {
    vast.setKnob('outcome', 'never_ready');
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.revokeKey(vast.state.apiKey);
    const err = await waitForRunning({ client, instanceId, ...fastWait }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'auth', status: 404 });
    expect(vast.callsTo('show')).toHaveLength(1);
  });

  it('survives rate limits while polling', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.setKnob('rateLimit', { count: 3, variant: 'cycle', endpoints: ['show'] });
    const running = await waitForRunning({ client, instanceId, ...fastWait });
    expect(running.backendUrl).toBe('http://127.0.0.1:41234');
  });
});
