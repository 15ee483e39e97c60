import { afterEach, describe, expect, it } from 'vitest';
import type { ReleaseInstanceResponse, SpendSummary, SweepRecord } from '../../shared';
import { SCENARIO } from '../fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH, makeOffer } from '../fakes/vast';
import { heldRunner, pollSweep } from '../sweeps/helpers';
import { TUNING, getJob, mustK8s, pollJob, startHarness, submit, waitForEnd, waitUntil, type Harness } from '../workflows/harness';

/**
 * One cost formula (design §15): a benchmark's machine, a kept llm-instance's machine and a
 * sweep's machine, rented from the same offer for the same hour with the same model on it, cost
 * the same dollars, downloads included, and the Overview's spend is their sum. The ledger's clock
 * is the test's: every machine is rented at 10:00 and released at 11:00.
 */

const CRASH = SCENARIO.crashLoopPod;
const SCRIPT: ChatTurn[] = [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] }, { content: `${CRASH.namespace}/${CRASH.name} is crash-looping.` }];
// Three identical hosts: the same GPU, price, storage and download price.
const OFFERS = [1, 2, 3].map((i) => makeOffer({ id: 22000000 + i, gpu_name: 'RTX 3090', gpu_ram: 24_576, dph_base: 0.3, inet_down_cost: 0.002 }));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const rent = { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, model: 'llama3.1:8b', backend_warmup: false };

async function release(h: Harness, instanceId: number): Promise<ReleaseInstanceResponse> {
  const res = await h.post(`/v1/marketplace/instances/${instanceId}/release`, undefined);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as ReleaseInstanceResponse;
}

describe('one cost formula', () => {
  it('a sweep, a kept llm-instance and a benchmark on the same offer for the same hour report the same dollars, downloads included; the Overview spend is their sum', async () => {
    const tenAm = new Date();
    tenAm.setHours(10, 0, 0, 0);
    const clock = { t: tenAm.getTime() };
    const runner = heldRunner({ hold: true });
    const h = await startHarness({
      vast: { offers: OFFERS },
      k8s: true,
      ollama: { models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': SCRIPT } },
      extra: { workflowTuning: { ...TUNING, now: () => clock.t }, sweepTuning: { runner: runner.runner, now: () => clock.t }, now: () => new Date(clock.t) },
    });
    cleanups.push(() => h.close());

    // 10:00: a kept llm-instance, a benchmark asked to keep its machine, and a one-cell sweep.
    const llm = await submit(h, 'llm-instance', rent);
    const bench = await submit(h, 'benchmark', { ...rent, question: 'Why is the shop down?', kubeconfig: mustK8s(h).kubeconfigPath, marketplace_stop_instance: false });
    const llmJob = (await waitForEnd(h, llm)).job;
    const benchJob = (await waitForEnd(h, bench)).job;
    expect([llmJob.status, benchJob.status]).toEqual(['succeeded', 'succeeded']);
    const created = await h.post('/v1/sweeps', { name: 'same hour', models: ['llama3.1:8b'], gpus: ['RTX 3090'], suite_id: 'starter', template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, max_total_cost_usd: 10 });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const sweepId = String(created.body.sweep_id);
    await waitUntil(() => runner.jobs.length === 1, "the sweep's cell to run on its machine");

    // 11:00: every machine goes back.
    clock.t += 3_600_000;
    const llmRelease = await release(h, llmJob.resources?.marketplace_instance_id ?? -1);
    const benchRelease = await release(h, benchJob.resources?.marketplace_instance_id ?? -1);
    runner.jobs[0]?.finish();
    const sweep: SweepRecord = await pollSweep(h, sweepId);
    expect(sweep.status).toBe('succeeded');

    // The same dollars, to the millionth: an hour at the host's $/h (storage of the same disk
    // included) plus the model's 4.92 GB at $0.002/GB.
    const dph = llmJob.resources?.dph_total ?? 0;
    const expected = Math.round((dph + 4.921 * 0.002) * 1e6) / 1e6;
    expect(llmRelease.cost_usd).toBe(expected);
    expect(benchRelease.cost_usd).toBe(expected);
    expect(sweep.machines[0]?.cost_usd).toBe(expected);
    expect(sweep.spend_usd).toBe(expected);
    expect(sweep.cells[0]?.cost_usd).toBe(expected);
    // The jobs' records say the same, after the release as before it (it never drops).
    expect((await pollJob(h, llm, (j) => j.resources?.cost_usd != null)).resources?.cost_usd).toBe(expected);
    expect((await getJob(h, bench)).resources?.cost_usd).toBe(expected);

    // The Overview's spend is their sum, by the kind of work that held each machine.
    const spend = (await h.get('/v1/spend')).body as unknown as SpendSummary;
    expect(spend.today.cost_usd).toBe(Math.round(expected * 3 * 1e6) / 1e6);
    expect(spend.by_kind).toMatchObject({ 'llm-instance': { cost_usd: expected, jobs: 1 }, benchmark: { cost_usd: expected, jobs: 1 }, sweep: { cost_usd: expected, jobs: 1 } });
    expect(spend.running).toMatchObject({ cost_usd: 0, jobs: 0 });
  }, 60_000);
});
