import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SuiteResult } from '../../shared';
import { starterSuite } from '../../src-main/suites/starter';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { startHarness, submit, waitForEnd, type Harness } from './harness';

/**
 * A suite run as design §12b wants it: the structured verdict scored against the ground truth,
 * the statements that counted, temperature and seed sent and recorded (each repeat its own seed),
 * the judge deciding with the rules reported beside it (and their disagreements counted),
 * self-judging refused, errors counted apart, and the manifest.
 */

const starter = starterSuite().suite;
const question = (id: string): string => starter.scenarios.find((x) => x.scenario_id === id)?.question ?? '';

const CRASH_WITH_VERDICT =
  'The orders-api pods are in CrashLoopBackOff: Postgres refuses the login for user "orders" (password authentication failed). It is not an OOM problem.\n\n```json\n{"healthy": false, "causes": [{"category": "bad-config", "objects": ["deployment/shop/orders-api"]}], "fix": "fix the password"}\n```';
const OOM_HALF = 'report-worker was OOMKilled (exit code 137) while loading the monthly dataset.';

const AGENT: ChatTurn[] = [{ content: 'I could not tell.', by_question: { [question('crashloop-db-password')]: CRASH_WITH_VERDICT, [question('oomkilled')]: OOM_HALF } }];
const LENIENT_JUDGE = 'qwen2.5:7b';
const JUDGE: ChatTurn[] = [{ content: '{"passed": true, "score": 1, "reasoning": "close enough", "verdict": {"healthy": false, "causes": [{"category": "oom-killed", "objects": ["deployment/analytics/report-worker"]}]}}' }];

const harnesses: Harness[] = [];
async function harness(): Promise<Harness> {
  const h = await startHarness({ ollama: { models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': AGENT, [LENIENT_JUDGE]: JUDGE } } });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

async function run(h: Harness, body: Record<string, unknown>): Promise<SuiteResult> {
  const id = await submit(h, 'suite', { suite_id: 'starter', model: 'llama3.1:8b', backend_url: h.ollama.url, ...body });
  const { job } = await waitForEnd(h, id, 30_000);
  expect(job.status, job.error ?? '').toBe('succeeded');
  return job.result as SuiteResult;
}

describe('suite scores you can trust', () => {
  it('scores the verdict, shows the statements, sends and records temperature and a seed per repeat, and carries the manifest', async () => {
    const h = await harness();
    const result = await run(h, { scenario_ids: ['crashloop-db-password'], repeat: 2, temperature: 0.7, seed: 42 });
    expect(result.scenarios.map((s) => [s.passed, s.method, s.seed, s.verdict?.correct])).toEqual([
      [true, 'rules', 42, true],
      [true, 'rules', 43, true],
    ]);
    const statements = result.scenarios[0]?.statements ?? [];
    expect(statements.find((s) => s.text.startsWith('It is not an OOM'))).toMatchObject({ affirmed: false, reason: 'negated', cue: 'not' });
    expect(statements.some((s) => s.reason === 'quoted-output')).toBe(true);
    expect(statements.filter((s) => s.counted.length > 0).length).toBeGreaterThan(0);
    // Every chat request of each run carried the run's sampling.
    const sampling = h.ollama.callsTo('/api/chat').map((c) => (c.body as { options?: { temperature?: number; seed?: number } }).options);
    expect(new Set(sampling.map((o) => o?.temperature))).toEqual(new Set([0.7]));
    expect(new Set(sampling.map((o) => o?.seed))).toEqual(new Set([42, 43]));
    expect(result.summary).toMatchObject({ passed: 2, total: 2, errors: 0, accuracy: 1, per_scenario: [{ scenario_id: 'crashloop-db-password', runs: 2, passed: 2, errors: 0, pass_rate: 1 }] });
    expect(result.summary.accuracy_ci95?.[0]).toBeLessThan(0.5);
    expect(result.summary.accuracy_ci95?.[1]).toBe(1);
    const m = result.manifest;
    expect(m).toMatchObject({ suite_id: 'starter', model: 'llama3.1:8b', backend_api: 'ollama', backend_version: '0.15.2', agent: 'builtin', temperature: 0.7, seed: 42, machine: null, template: null });
    expect(m?.suite_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(m?.snapshot_sha256 ?? {})).toEqual(['starter-crashloop-db-password']);
    expect(m?.model_digest).toBe(createHash('sha256').update('llama3.1:8b').digest('hex'));
    expect(m?.request).toMatchObject({ suite_id: 'starter', repeat: 2, seed: 42 });
    expect(Date.parse(m?.started_at ?? '')).not.toBeNaN();
  });

  it('at temperature 0 without a seed sends none; with temperature > 0 it picks one and records it', async () => {
    const h = await harness();
    const greedy = await run(h, { scenario_ids: ['oomkilled'] });
    expect(greedy.scenarios[0]?.seed).toBeNull();
    expect(greedy.manifest).toMatchObject({ temperature: 0, seed: null });
    const warm = await run(h, { scenario_ids: ['oomkilled'], repeat: 2, temperature: 0.3 });
    const base = warm.manifest?.seed ?? -1;
    expect(base).toBeGreaterThanOrEqual(0);
    expect(warm.scenarios.map((s) => s.seed)).toEqual([base, base + 1]);
  });

  it('lets the judge decide, reports the rules beside it and counts where they disagree', async () => {
    const h = await harness();
    const result = await run(h, { scenario_ids: ['oomkilled'], judge: { model: LENIENT_JUDGE } });
    expect(result.scenarios[0]).toMatchObject({ passed: true, rules_passed: false, method: 'judge', score: 0.5, judge: { passed: true, verdict: { healthy: false } } });
    expect(result.summary).toMatchObject({ passed: 1, accuracy: 1, judge: { passed: 1, disagreements: 1 } });
    // The judge saw the ground truth and the wrong claims, with the answer between its markers.
    const judged = h.ollama.callsTo('/api/chat').find((c) => (c.body as { model?: string }).model === LENIENT_JUDGE);
    const prompt = JSON.stringify(judged?.body);
    expect(prompt).toContain('oom-killed: deployment/analytics/report-worker');
    expect(prompt).toContain('Wrong claims a correct answer must not make');
    expect(prompt).toMatch(/<answer-[0-9a-f]{16}>/);
  });

  it('refuses a judge that is the model under test unless allowed', async () => {
    const h = await harness();
    const refused = await h.post('/v1/jobs/suite', { suite_id: 'starter', model: 'llama3.1:8b', backend_url: h.ollama.url, judge: { model: 'Llama3.1:8B' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'judge.model', message: expect.stringMatching(/may not grade its own answers/) })]);
    const allowed = await h.post('/v1/jobs/suite', { suite_id: 'starter', scenario_ids: ['oomkilled'], model: 'llama3.1:8b', backend_url: h.ollama.url, judge: { model: 'llama3.1:8b', allow_self_judge: true } });
    expect(allowed.status).toBe(202);
    await waitForEnd(h, String(allowed.body.job_id), 30_000);
  });

  it('counts a run without an answer as an error, apart from the failures', async () => {
    const h = await harness();
    const result = await run(h, { scenario_ids: ['oomkilled', 'healthy-cluster'], model: 'not-installed:1b', backend_warmup: false });
    expect(result.scenarios.every((s) => typeof s.error === 'string' && !s.passed)).toBe(true);
    expect(result.summary).toMatchObject({ passed: 0, total: 2, errors: 2, accuracy: 0, accuracy_ci95: [0, 1] });
    expect(result.summary.per_scenario?.map((p) => p.pass_rate)).toEqual([null, null]);
  });
});
