import { afterEach, describe, expect, it } from 'vitest';
import type { JobEvent, SuiteResult } from '../../shared';
import { starterSuite } from '../../src-main/suites/starter';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH, defaultOffers } from '../fakes/vast';
import { destroyCalls, expectInOrder, line, mustVast, startHarness, submit, waitForEnd, waitForEvent, type Harness, type HarnessOptions } from './harness';

/**
 * The `suite` job kind (design §12) on the fakes: three starter scenarios answered by a scripted
 * model score exactly as its answers deserve; on the marketplace one machine is rented for the
 * whole suite and released; a cancel releases it too; the judge is retried once on invalid JSON.
 */

const starter = starterSuite().suite;
const question = (id: string): string => {
  const s = starter.scenarios.find((x) => x.scenario_id === id);
  if (!s) throw new Error(`no starter scenario ${id}`);
  return s.question;
};

/** Right: both findings. */
const CRASH_ANSWER = 'The orders-api pods are in CrashLoopBackOff: their previous logs say FATAL: password authentication failed for user "orders". Fix the password in the orders-db-credentials secret.';
/** Half right: the cause, not the fix. */
const OOM_ANSWER = 'report-worker was OOMKilled (exit code 137) while loading the monthly dataset.';
/** Wrong: claims a failure in a healthy cluster. */
const HEALTHY_ANSWER = 'The payments deployment is failing; restart it.';

const AGENT_SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  {
    content: 'I could not tell.',
    by_question: { [question('crashloop-db-password')]: CRASH_ANSWER, [question('oomkilled')]: OOM_ANSWER, [question('healthy-cluster')]: HEALTHY_ANSWER },
  },
];
const JUDGE_MODEL = 'qwen2.5:7b';
/** Invalid first (prose around no JSON), valid on the retry. */
const JUDGE_SCRIPT: ChatTurn[] = [{ content: 'Looks mostly right to me.' }, { content: '```json\n{"score": 0.75, "passed": false, "reasoning": "one finding missing"}\n```' }];

const THREE = ['crashloop-db-password', 'oomkilled', 'healthy-cluster'];
const BIG_MODEL = 'qwen2.5:32b';
const FIRST_INSTANCE = 30000001;

const harnesses: Harness[] = [];
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    ollama: {
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }],
      scripts: { 'llama3.1:8b': AGENT_SCRIPT, [BIG_MODEL]: AGENT_SCRIPT, [JUDGE_MODEL]: JUDGE_SCRIPT },
    },
    ...options,
  });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

function suiteResult(job: { kind: string; status: string; error: string | null; result: unknown }): SuiteResult {
  if (job.kind !== 'suite' || !job.result) throw new Error(`expected a suite result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result as SuiteResult;
}

const scored = (events: readonly JobEvent[]) => events.filter((e) => e.event === 'scenario.scored');

describe('suite on an existing llmserver', () => {
  it('asks each scenario on its own snapshot and scores it as the scripted answers deserve', async () => {
    const h = await harness();
    const id = await submit(h, 'suite', { suite_id: 'starter', scenario_ids: THREE, model: 'llama3.1:8b', backend_url: h.ollama.url });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = suiteResult(job);
    expect(result.scenarios.map((s) => [s.scenario_id, s.passed, s.score])).toEqual([
      ['crashloop-db-password', true, 1],
      ['oomkilled', false, 0.5],
      ['healthy-cluster', false, 0],
    ]);
    expect(result.scenarios[1]).toMatchObject({ missed: ['the fix is a higher memory limit (or less memory used)'], answer: OOM_ANSWER });
    // The false alarm and the fix it recommends are both claims of a fault on the healthy cluster.
    expect(result.scenarios[2]?.must_not_matched).toEqual(['a fault claimed: "The payments deployment is failing"', 'a fault claimed: "restart it."']);
    expect(result.summary).toMatchObject({ passed: 1, total: 3, accuracy: 0.3333, mean_score: 0.5, cost_usd: 0, cost_per_correct_usd: 0 });
    expect(result.summary.latency_ms.p50).not.toBeNull();
    expect(result.cost).toBeNull();
    expect(result.phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:ok', 'analysis:ok', 'teardown:skipped']);
    // One warm-up for the whole suite; each scenario on its snapshot, scored as it finishes.
    expect(events.filter((e) => line(e) === 'llmserver.warmup:ok')).toHaveLength(1);
    expectInOrder(events, [
      'scenario.started:started',
      'snapshot.serve:ok',
      'agent.ask:ok',
      'snapshot.stop:info',
      'scenario.scored:ok',
      'scenario.started:started',
      'scenario.scored:ok',
      'scenario.started:started',
      'scenario.scored:ok',
      'job.succeeded:ok',
    ]);
    expect(events.filter((e) => e.event === 'snapshot.serve' && e.status === 'ok').map((e) => e.labels.snapshot_id)).toEqual([
      'starter-crashloop-db-password',
      'starter-oomkilled',
      'starter-healthy',
    ]);
    expect(scored(events).map((e) => [e.labels.scenario_id, e.labels.passed, e.labels.score])).toEqual([
      ['crashloop-db-password', true, 1],
      ['oomkilled', false, 0.5],
      ['healthy-cluster', false, 0],
    ]);
  });

  it('repeat asks each scenario again; the judge is retried once on invalid JSON and reported apart', async () => {
    const h = await harness();
    const id = await submit(h, 'suite', {
      suite_id: 'starter',
      scenario_ids: ['oomkilled'],
      repeat: 2,
      model: 'llama3.1:8b',
      backend_url: h.ollama.url,
      judge: { model: JUDGE_MODEL },
    });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = suiteResult(job);
    expect(result.scenarios.map((s) => [s.scenario_id, s.run])).toEqual([
      ['oomkilled', 1],
      ['oomkilled', 2],
    ]);
    for (const s of result.scenarios) {
      expect(s.judge).toMatchObject({ score: 0.75, passed: false, reasoning: 'one finding missing', model: JUDGE_MODEL, cost_usd: 0 });
      expect(s.judge?.prompt_tokens).toBeGreaterThan(0);
      // The judge decides; the rules are reported beside it (here they agree: half the findings).
      expect(s).toMatchObject({ score: 0.5, passed: false, rules_passed: false, method: 'judge' });
    }
    expect(result.summary.judge).toMatchObject({ mean_score: 0.75, passed: 0, disagreements: 0 });
    // Two judge calls per answer: the invalid one and the retry.
    const judgeChats = h.ollama.callsTo('/api/chat').filter((c) => (c.body as { model?: string }).model === JUDGE_MODEL);
    expect(judgeChats).toHaveLength(4);
    expect(events.filter((e) => line(e) === 'judge.ask:ok')).toHaveLength(2);
  });

  it('refuses an unknown suite or scenario with a 422 naming the field', async () => {
    const h = await harness();
    const unknownSuite = await h.post('/v1/jobs/suite', { suite_id: 'nope', model: 'llama3.1:8b', backend_url: h.ollama.url });
    expect(unknownSuite.status).toBe(422);
    expect(unknownSuite.body.errors).toEqual([expect.objectContaining({ path: 'suite_id' })]);
    const unknownScenario = await h.post('/v1/jobs/suite', { suite_id: 'starter', scenario_ids: ['oomkilled', 'ghost'], model: 'llama3.1:8b', backend_url: h.ollama.url });
    expect(unknownScenario.status).toBe(422);
    expect(unknownScenario.body.errors).toEqual([expect.objectContaining({ path: 'scenario_ids.1' })]);
    const badRepeat = await h.post('/v1/jobs/suite', { suite_id: 'starter', repeat: 11, model: 'llama3.1:8b', backend_url: h.ollama.url });
    expect(badRepeat.status).toBe(422);
    expect(badRepeat.body.errors).toEqual([expect.objectContaining({ path: 'repeat' })]);
  });
});

describe('suite on the marketplace', () => {
  const body = (over: Record<string, unknown> = {}) => ({
    suite_id: 'starter',
    scenario_ids: THREE,
    marketplace: true,
    template_hash: OLLAMA_TEMPLATE_HASH,
    max_dph: 0.5,
    model: BIG_MODEL,
    backend_warmup_timeout: 30,
    ...over,
  });

  it('rents exactly one machine for the whole suite, warms up once, and releases it', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'suite', body());
    const { job, events } = await waitForEnd(h, id, 60_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = suiteResult(job);
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(result.instance).toMatchObject({ id: FIRST_INSTANCE, released: true });
    expect(result.cost?.cost_usd).toBeGreaterThan(0);
    expect(result.summary.cost_usd).toBe(result.cost?.cost_usd);
    expect(result.summary.cost_per_correct_usd).toBe(Math.round(((result.cost?.cost_usd ?? 0) / 1) * 1e6) / 1e6);
    expect(result.scenarios.map((s) => s.passed)).toEqual([true, false, false]);
    expect(events.filter((e) => line(e) === 'llmserver.warmup:ok')).toHaveLength(1);
    expect(events.some((e) => e.event === 'cost.update')).toBe(true);
    expectInOrder(events, ['phase.provision:ok', 'phase.warmup:ok', 'scenario.scored:ok', 'scenario.scored:ok', 'scenario.scored:ok', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.succeeded:ok']);
  });

  it('stops at the spend limit mid-suite, releases the machine, and fails budget_exceeded', async () => {
    // Free downloads: the limit is reached by machine time alone, while a scenario is being asked.
    const h = await harness({
      vast: { offers: defaultOffers().map((o) => ({ ...o, inet_down_cost: 0 })) },
      extra: { workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 50 } },
    });
    const vast = mustVast(h);
    h.ollama.setKnobs({ firstByteDelayMs: 30_000 });
    const id = await submit(h, 'suite', body({ max_cost_usd: 0.00004, estimated_duration_seconds: 1, backend_warmup: false }));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('budget_exceeded');
    const instanceId = job.resources?.marketplace_instance_id ?? -1;
    expect(vast.state.instances.get(instanceId)?.destroyed).toBe(true);
    expect(job.resources?.marketplace_instance_released).toBe(true);
    expectInOrder(events, ['scenario.started:started', 'cost.update:info', 'phase.analysis:error', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    // The scenario that was being asked is not scored: it was stopped, not answered.
    expect(scored(events)).toEqual([]);
  });

  it('cancel mid-suite releases the machine; the scenarios done so far stay in the events', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'suite', body());
    await waitForEvent(h, id, (e) => line(e) === 'scenario.scored:ok', 'the first scenario to be scored', 60_000);
    // Every later answer hangs: the cancel lands in the middle of a scenario.
    h.ollama.setKnobs({ firstByteDelayMs: 60_000 });
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status).toBe('cancelled');
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
    expect(scored(events).length).toBeGreaterThanOrEqual(1);
    expect(scored(events)[0]?.labels).toMatchObject({ scenario_id: 'crashloop-db-password', passed: true, answer: CRASH_ANSWER });
    expectInOrder(events, ['scenario.scored:ok', 'job.cancel_requested:info', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.cancelled:info']);
  });
});
