import { expect } from 'vitest';
import type { MarketplaceInstanceEntry, MarketplaceInstanceList } from '../../shared';
import { SCENARIO } from '../fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, defaultOffers, type FakeOffer, type FakeVast } from '../fakes/vast';
import { getJob, startHarness, waitUntil, type Harness, type HarnessOptions } from './harness';

/** What the money-safety tests share: the harness with the scripted agent, instance reads, request bodies. */

export const CRASH = SCENARIO.crashLoopPod;
export const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] },
  { content: `${CRASH.namespace}/${CRASH.name} is crash-looping.` },
];
export const BIG_MODEL = 'qwen2.5:32b';

/** A harness on the fakes with the scripted agent; closed by the caller's cleanups. */
export async function moneyHarness(cleanups: (() => Promise<void>)[], options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    ollama: {
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }],
      scripts: { 'llama3.1:8b': SCRIPT },
    },
    ...options,
  });
  cleanups.push(() => h.close());
  return h;
}

export async function instances(h: Harness, query = ''): Promise<MarketplaceInstanceList> {
  const res = await h.get(`/v1/marketplace/instances${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as MarketplaceInstanceList;
}

export function entryOf(list: MarketplaceInstanceList, instanceId: number): MarketplaceInstanceEntry | undefined {
  return list.instances.find((e) => e.instance_id === instanceId);
}

export const llmInstanceBody = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 1,
  model: 'llama3.1:8b',
  backend_warmup: false,
  ...over,
});

export async function instanceOf(h: Harness, jobId: string): Promise<number> {
  return waitUntil(async () => (await getJob(h, jobId)).resources?.marketplace_instance_id ?? null, `job ${jobId} to record its instance`);
}

/** The default marketplace with free downloads: a test of the running limit is not refused by the pre-flight download cost. */
export function freeDownloads(): FakeOffer[] {
  return defaultOffers().map((o) => ({ ...o, inet_down_cost: 0 }));
}

export async function rentForeign(vast: FakeVast): Promise<number> {
  const res = await fetch(`${vast.url}/asks/20000008/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${FAKE_VAST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40, label: 'training-run-7' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { new_contract: number }).new_contract;
}

