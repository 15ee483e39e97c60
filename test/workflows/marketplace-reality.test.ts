import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MarketplaceInstanceList } from '../../shared';
import { SCENARIO } from '../fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { DEAR_DOWNLOAD_OFFER, FAKE_VAST_KEY, NO_DIRECT_PORTS_OFFER, OLLAMA_TEMPLATE_HASH, defaultOffers } from '../fakes/vast';
import {
  benchmarkResult,
  getEvents,
  getJob,
  line,
  marketplaceLlmResult,
  mustK8s,
  mustVast,
  pollJob,
  startHarness,
  submit,
  waitForEnd,
  waitForEvent,
  waitUntil,
  type Harness,
  type HarnessOptions,
} from './harness';

/**
 * The marketplace as it really is (the official CLI and live reports), end to end through the HTTP
 * API against the fake Vast.ai: the v0 instance list answers 410 (the fake's default), offers without
 * direct ports, a $40/TB host, a rate-limited create, a slow create answer, and a revoked key
 * answered 404 `auth_error`.
 */

const CRASH = SCENARIO.crashLoopPod;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] },
  { content: `${CRASH.namespace}/${CRASH.name} is crash-looping.` },
];

const harnesses: Harness[] = [];
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': SCRIPT } }, ...options });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

const llmInstance = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 1,
  model: 'llama3.1:8b',
  backend_warmup: false,
  ...over,
});

async function machines(h: Harness): Promise<MarketplaceInstanceList> {
  const res = await h.get('/v1/marketplace/instances');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as MarketplaceInstanceList;
}

describe('instance lists through v1 (the v0 list answers 410 deprecated_endpoint)', () => {
  it('lists and sweeps 27 machines in pages of 25 (next_token → after_token), never calling v0', async () => {
    const h = await harness({ start: true, extra: { instancesTuning: { sweepIntervalMs: 600_000, releaseRetryDelayMs: 5 } } });
    const vast = mustVast(h);
    await h.bd.instances.sweep(); // the start-up sweep, on an empty account
    const lost = Array.from({ length: 27 }, (_, i) => vast.seedInstance(`benchdesk:${h.bd.installId}:lost-${i}`));
    const before = vast.callsTo('list_v1').length;
    const list = await machines(h);
    expect(list.instances.map((e) => e.instance_id).sort()).toEqual([...lost].sort());
    expect(list.instances.every((e) => e.classification === 'orphaned')).toBe(true);
    const pages = vast.callsTo('list_v1').slice(before);
    expect(pages).toHaveLength(2);
    expect(pages.map((c) => c.query.limit)).toEqual(['25', '25']);
    expect(pages[0]?.query.after_token).toBeUndefined();
    expect(pages[1]?.query.after_token).toBeTruthy();
    expect(vast.callsTo('list')).toEqual([]);

    h.bd.settings.updateAppSettings({ release_orphans_automatically: true });
    const swept = await h.bd.instances.sweep();
    expect(swept.orphaned.sort()).toEqual([...lost].sort());
    expect(swept.released.sort()).toEqual([...lost].sort());
    expect(vast.liveInstances()).toEqual([]);
    expect(vast.callsTo('list')).toEqual([]);
  });
});

describe('only offers a job can use', () => {
  it('never rents a host without direct ports, even the cheapest; when it is the only one in range the job rents nothing', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', llmInstance());
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(marketplaceLlmResult(job).offer.id).toBe(20000001);
    expect(vast.callsTo('asks').map((c) => c.path)).not.toContain(`/api/v0/asks/${NO_DIRECT_PORTS_OFFER}/`);

    // $0.05–$0.0586/h: only the host without direct ports is that cheap.
    const none = await submit(h, 'llm-instance', llmInstance({ max_dph: 0.0586 }));
    const { job: failed } = await waitForEnd(h, none);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'no_offers' });
    expect(failed.error).toMatch(/No offer fits .*a direct port/);
    expect(vast.callsTo('asks')).toHaveLength(1);
  });

  it('ranks by total cost: a $40/TB host that is cheaper by the hour loses to its model download', async () => {
    // Without the no-direct-port host, the cheapest by the hour is the $0.06/h one that charges $40/TB.
    const h = await harness({ vast: { offers: defaultOffers().filter((o) => o.id !== NO_DIRECT_PORTS_OFFER) } });
    const id = await submit(h, 'llm-instance', llmInstance());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(marketplaceLlmResult(job).offer).toMatchObject({ id: 20000001, inet_down_cost: 0.00123, download_usd: 0.006 });
    expect(mustVast(h).callsTo('asks').map((c) => c.path)).toEqual(['/api/v0/asks/20000001/']);
    expect(events.find((e) => line(e) === 'marketplace.offer_search:ok')?.labels).toMatchObject({ cheapest_id: 20000001 });
    expect(mustVast(h).state.offers.has(DEAR_DOWNLOAD_OFFER)).toBe(true);
  });
});

describe('slow answers and rate limits', () => {
  it("a create answered 429 (no Retry-After) is tried again after the create penalty (Vast's 12 s, scaled down here), and the job goes on", async () => {
    const h = await harness({ extra: { marketplaceClient: { pacing: { routes: { create: { intervalMs: 50, penaltyMs: 300 } } } } } });
    const vast = mustVast(h);
    vast.setKnob('rateLimit', { count: 1, variant: 'detail', endpoints: ['asks'] });
    const id = await submit(h, 'llm-instance', llmInstance());
    const { job } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const [limited, created] = vast.callsTo('asks');
    expect([limited?.status, created?.status]).toEqual([429, 200]);
    expect((created?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(300);
  }, 30_000);

  it('waits for a slow create answer (120 s are allowed) although other calls time out sooner', async () => {
    // Every other call gets 1 s here; the create answers after 1.5 s and is still read, so nothing is lost or re-rented.
    const h = await harness({ extra: { marketplaceClient: { timeoutMs: 1_000 } } });
    const vast = mustVast(h);
    vast.setKnob('rentAnswerDelayMs', 1_500);
    const id = await submit(h, 'llm-instance', llmInstance());
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(events.find((e) => line(e) === 'marketplace.instance.create:ok')?.duration_ms).toBeGreaterThanOrEqual(1_400);
    expect(vast.liveInstances()).toHaveLength(1);
  }, 30_000);
});

describe('a 404 saying "Invalid user key" is not "gone"', () => {
  it('a revoked key: the teardown fails and says why; its lease keeps trying, and releases the machine once a working key is set', async () => {
    const h = await harness({
      k8s: true,
      // The app's own key can be set (as in the desktop app); until then VAST_API_KEY is in use.
      extra: { appMarketplaceKey: { persist: async () => undefined }, instancesTuning: { releaseRetryDelayMs: 5 } },
    });
    const vast = mustVast(h);
    h.ollama.setKnobs({ firstByteDelayMs: 400 });
    const id = await submit(h, 'benchmark', { ...llmInstance(), question: 'Why is the shop down?', kubeconfig: mustK8s(h).kubeconfigPath });
    await waitForEvent(h, id, (e) => line(e) === 'phase.analysis:started', 'the analysis to start');
    const instanceId = (await getJob(h, id)).resources?.marketplace_instance_id ?? -1;
    const heldKeyFile = path.join(h.dir, 'secrets', `rent-key-${id}.json`);
    expect(existsSync(heldKeyFile)).toBe(true);
    // The key is revoked on the Vast.ai console while the job runs: from now on it is answered 404 auth_error.
    vast.revokeKey(FAKE_VAST_KEY);

    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = benchmarkResult(job);
    expect(result.teardown).toMatchObject({ released: false, verified: false });
    expect(result.teardown?.message).toMatch(/Could not destroy instance \d+: Vast\.ai rejected the API key \(HTTP 404 on DELETE .*Invalid user key\)/);
    const untilEnd = events.slice(0, events.findIndex((e) => line(e) === 'job.succeeded:ok'));
    const destroys = untilEnd.filter((e) => e.event === 'marketplace.instance.destroy' && e.status === 'error');
    // The teardown's one round, error_type auth (a refused key is no reason to hammer the destroy).
    expect(destroys).toHaveLength(1);
    expect(destroys[0]).toMatchObject({ error_type: 'auth' });
    expect(destroys[0]?.message).toMatch(/rejected the API key.*Invalid user key/);
    expect(job.resources).toMatchObject({ marketplace_instance_released: false, marketplace_release_error: expect.stringMatching(/rejected the API key/) });
    expect(vast.liveInstances().map((i) => i.id)).toEqual([instanceId]);
    // Its lease keeps trying (the machine bills until it is gone), and counts it meanwhile.
    expect(h.bd.leases.ledger.get(id)).toMatchObject({ state: 'releasing', release_error: expect.stringMatching(/rejected the API key/) });

    // A working key of the same account is set: the lease's next try releases the machine with it.
    vast.addKey('rotated-key-of-the-same-account');
    await h.bd.marketplaceKey.store('rotated-key-of-the-same-account');
    await waitUntil(() => vast.liveInstances().length === 0, 'the lease to release the machine with the working key');
    expect(vast.callsTo('destroy').at(-1)?.headers.authorization).toBe('Bearer rotated-key-of-the-same-account');
    const settled = await pollJob(h, id, (j) => j.resources?.marketplace_instance_released === true, 15_000, 'the release on the job');
    expect(settled.resources).toMatchObject({ marketplace_instance_released: true, marketplace_release_error: null });
    await waitUntil(() => !existsSync(heldKeyFile), 'the held key to be removed');
    expect((await machines(h)).instances).toEqual([]);
    expect((await getEvents(h, id)).some((e) => line(e) === 'marketplace.instance.destroy:ok' && /with another marketplace key/.test(e.message ?? ''))).toBe(true);

  }, 30_000);
});
