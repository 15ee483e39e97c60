import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCatalogModel } from '../../src-main/marketplace/catalog';
import type { MarketplaceEvent } from '../../src-main/marketplace/events';
import { releaseInstance, rentCheapestFit, type RentRequest } from '../../src-main/marketplace/provisioning';
import type { VastClient } from '../../src-main/marketplace/vast-client';
import { OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { clientFor, expectKeyOnlyInHeader, must } from './helpers';

/**
 * Destroy and verify against the fake Vast.ai: gone confirmed by a read-back (null or a 404 that
 * is not an auth failure), retries that report rather than throw, refused keys, success:false.
 */

let vast: FakeVast;
let client: VastClient;
let events: MarketplaceEvent[];
const onEvent = (e: MarketplaceEvent): void => {
  events.push(e);
};
const model = must(resolveCatalogModel('llama3.1:8b'));
const request: RentRequest = { template_hash: OLLAMA_TEMPLATE_HASH, min_dph: 0, max_dph: 1, reliability: 0.99 };
const fastRelease = { retryDelayMs: 5, maxRetryDelayMs: 20 };
const INSTALL = 'inst0test0aa';
const eventLine = (e: MarketplaceEvent): string => `${e.event}:${e.status}`;

beforeEach(async () => {
  vast = await startFakeVast();
  client = clientFor(vast);
  events = [];
});
afterEach(async () => {
  expectKeyOnlyInHeader(vast);
  await vast.close();
});

describe('releaseInstance', () => {
  it('destroys and verifies (instances: null)', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const result = await releaseInstance({ client, instanceId, onEvent, ...fastRelease });
    expect(result).toEqual({ released: true, verified: true, attempts: 1, message: `Instance ${instanceId} destroyed and confirmed gone` });
    expect(vast.callsTo('destroy').map((c) => c.path)).toEqual([`/api/v0/instances/${instanceId}/`]);
    expect(events.map(eventLine)).toEqual(['marketplace.instance.destroy:started', 'marketplace.instance.destroy:ok']);
    expect(must(events[1]).duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('verifies through a 404 as well, and reports an already-gone instance', async () => {
    vast.setKnob('goneAs', '404');
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    expect(await releaseInstance({ client, instanceId, ...fastRelease })).toMatchObject({ released: true, verified: true });
    const again = await releaseInstance({ client, instanceId, ...fastRelease });
    expect(again).toMatchObject({ released: true, verified: true, message: `Instance ${instanceId} was already gone` });
  });

  it('retries, then reports an unverified release without throwing', async () => {
    vast.setKnob('destroyIgnored', true);
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    const result = await releaseInstance({ client, instanceId, attempts: 3, onEvent, ...fastRelease });
    expect(result).toMatchObject({ released: true, verified: false, attempts: 3 });
    expect(result.message).toMatch(/accepted but not confirmed.*Vast\.ai console/);
    expect(vast.callsTo('destroy')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ status: 'error', error_type: 'unverified' });
  });

  it('reports a destroy that keeps failing', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.setKnob('failNext', { count: 1000, status: 500, endpoints: ['destroy'] });
    const result = await releaseInstance({ client, instanceId, attempts: 2, ...fastRelease });
    expect(result).toMatchObject({ released: false, verified: false });
    expect(result.message).toMatch(/Could not destroy instance .*may still be billing/);
  });

  it('a revoked key (404 auth_error) is never read as "gone": the release fails saying why, and the machine stays', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.revokeKey(vast.state.apiKey);
    const result = await releaseInstance({ client, instanceId, onEvent, ...fastRelease });
    expect(result).toMatchObject({ released: false, verified: false, authFailed: true });
    expect(result.message).toMatch(/Could not destroy instance 30000001: Vast\.ai rejected the API key \(HTTP 404 on DELETE .*Invalid user key\).*set a working marketplace key/);
    expect(vast.liveInstances().map((i) => i.id)).toEqual([instanceId]);
    expect(events.at(-1)).toMatchObject({ event: 'marketplace.instance.destroy', status: 'error', error_type: 'auth' });
  });

  it('when the key is refused, another key takes over only if it can see the machine', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.addKey('key-of-another-account-0001', 'other');
    vast.addKey('rotated-key-same-account-01');
    const otherAccount = clientFor(vast, { apiKey: 'key-of-another-account-0001' });
    const rotated = clientFor(vast, { apiKey: 'rotated-key-same-account-01' });
    vast.revokeKey(vast.state.apiKey);
    // The other account's key would answer "not found" for a machine that bills: it must not be believed.
    const result = await releaseInstance({ client, fallbackClients: [otherAccount, rotated], instanceId, ...fastRelease });
    expect(result).toMatchObject({ released: true, verified: true });
    expect(result.message).toMatch(/destroyed and confirmed gone \(with another marketplace key/);
    expect(vast.callsTo('destroy').map((c) => [c.headers.authorization, c.status])).toEqual([
      [`Bearer ${vast.state.apiKey}`, 404],
      ['Bearer rotated-key-same-account-01', 200],
    ]);
    expect(vast.liveInstances()).toEqual([]);
  });

  it('a destroy answered {"success": false} is not a release', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.setKnob('destroyAnswer', 'success_false');
    const result = await releaseInstance({ client, instanceId, attempts: 2, ...fastRelease });
    expect(result).toMatchObject({ released: false, verified: false });
    expect(result.message).toMatch(/Could not destroy instance 30000001: .*success: false/);
    expect(vast.callsTo('destroy')).toHaveLength(2);
    expect(vast.liveInstances().map((i) => i.id)).toEqual([instanceId]);
  });

  it('gets through rate limits on destroy', async () => {
    const { instanceId } = await rentCheapestFit({ client, request, model, jobId: 'j', installId: INSTALL });
    vast.setKnob('rateLimit', { count: 2, variant: 'json', endpoints: ['destroy'] });
    expect(await releaseInstance({ client, instanceId, ...fastRelease })).toMatchObject({ released: true, verified: true });
  });
});
