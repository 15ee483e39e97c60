import { afterEach, describe, expect, it } from 'vitest';
import { JobRecordSchema } from '../../shared';
import { starterSuite } from '../../src-main/suites/starter';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { mustVast, startHarness, type Harness } from '../workflows/harness';
import { pollSweep } from './helpers';

/**
 * Sweeps with the real job kinds, end to end on the fakes. A suite sweep rents one machine, runs
 * the starter suite for each model as a `suite` job pointed at the machine's Ollama (the built-in
 * agent on each scenario's recorded cluster, scored by the real scorer), reads the results, costs
 * and ranks the cells, and releases the machine. A serving sweep runs a `serving-benchmark` job
 * per cell against the fake Ollama's serving mode and prices a million output tokens per cell.
 */

const starter = starterSuite().suite;
const question = (id: string): string => {
  const s = starter.scenarios.find((x) => x.scenario_id === id);
  if (!s) throw new Error(`no starter scenario ${id}`);
  return s.question;
};
const CRASH_ANSWER = 'The orders-api pods are in CrashLoopBackOff: their previous logs say FATAL: password authentication failed for user "orders". Fix the password in the orders-db-credentials secret.';

/** llama3.1:8b gets the crash loop right; qwen2.5:7b never knows. */
const KNOWS: ChatTurn[] = [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] }, { content: 'I could not tell.', by_question: { [question('crashloop-db-password')]: CRASH_ANSWER } }];
const GUESSES: ChatTurn[] = [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] }, { content: 'I could not tell.' }];

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('a suite sweep with the real suite job kind', () => {
  it('one machine, a suite job per model on it, scored, costed, ranked, released', async () => {
    const h = await startHarness({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': KNOWS, 'qwen2.5:7b': GUESSES } } });
    harnesses.push(h);
    const res = await h.post('/v1/sweeps', {
      name: 'starter on a 3090',
      models: ['qwen2.5:7b', 'llama3.1:8b'],
      gpus: ['RTX 3090'],
      suite_id: 'starter',
      template_hash: OLLAMA_TEMPLATE_HASH,
      max_dph: 1,
      max_total_cost_usd: 5,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const sweep = await pollSweep(h, String(res.body.sweep_id), undefined, 120_000);
    expect(sweep.status, JSON.stringify(sweep.cells)).toBe('succeeded');
    const total = starter.scenarios.length;
    const [qwen, llama] = sweep.cells;
    expect(llama).toMatchObject({ status: 'succeeded', passed: 1, total });
    expect(llama?.accuracy).toBeCloseTo(1 / total, 4);
    expect(qwen).toMatchObject({ status: 'succeeded', passed: 0, total, accuracy: 0 });
    // $ per correct answer from the suite job's own time on the machine (not the pull before it).
    expect(llama?.suite_cost_usd).toBeGreaterThan(0);
    expect(llama?.suite_cost_usd).toBeLessThanOrEqual(llama?.cost_usd ?? 0);
    expect(llama?.cost_per_correct_usd).toBeCloseTo(llama?.suite_cost_usd ?? -1, 6);
    expect(qwen?.cost_per_correct_usd).toBeUndefined();
    // 1/10 and 0/10 are a tie: one tier; the cell with a correct answer first.
    expect(sweep.cells.map((c) => c.rank_tier)).toEqual([1, 1]);
    expect(llama?.accuracy_ci95?.[0]).toBeLessThan(0.1);
    // Each cell carries its suite job's manifest; the report carries the sweep's.
    expect(llama?.manifest).toMatchObject({ suite_id: 'starter', model: 'llama3.1:8b', backend_api: 'ollama' });
    const report = (await h.get(`/v1/sweeps/${String(res.body.sweep_id)}/report`)).body as { manifest: { suite_id: string; suite_sha256: string; model: string | null } };
    expect(report.manifest).toMatchObject({ suite_id: 'starter', suite_sha256: llama?.manifest?.suite_sha256, model: null });
    // Accuracy per tag, from the suite's scenarios.
    const crashTags = starter.scenarios.find((s) => s.scenario_id === 'crashloop-db-password')?.tags ?? [];
    expect(crashTags.length).toBeGreaterThan(0);
    for (const tag of crashTags) expect(llama?.tags?.[tag]?.passed).toBeGreaterThanOrEqual(1);
    expect(sweep.ranking).toEqual([1, 0]);
    // Real suite jobs, on the sweep's machine as an existing backend: they rented nothing themselves.
    for (const cell of sweep.cells) {
      expect(cell.job_ids).toHaveLength(1);
      const job = JobRecordSchema.parse((await h.get(`/v1/jobs/${cell.job_ids[0]}`)).body);
      expect(job).toMatchObject({ kind: 'suite', status: 'succeeded', request: { marketplace: false, suite_id: 'starter', model: cell.model } });
      expect(job.resources?.marketplace_instance_id ?? null).toBeNull();
    }
    const vast = mustVast(h);
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(vast.liveInstances()).toHaveLength(0);
    expect(sweep.machines[0]).toMatchObject({ status: 'released', released: true });
  }, 180_000);

  it('a suite that does not exist is a 422 on suite_id; nothing is rented', async () => {
    const h = await startHarness({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS } });
    harnesses.push(h);
    const res = await h.post('/v1/sweeps', { name: 'x', models: ['llama3.1:8b'], gpus: ['RTX 3090'], suite_id: 'no-such-suite', template_hash: OLLAMA_TEMPLATE_HASH, max_total_cost_usd: 5 });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain('suite_id');
    expect(mustVast(h).callsTo('asks')).toHaveLength(0);
  });
});

describe('a serving sweep with the real serving-benchmark kind', () => {
  it('2 models × 2 GPUs: two machines, a serving job per cell, $ per million output tokens per cell, ranked by it', async () => {
    const h = await startHarness({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS, knobs: { serving: { firstTokenMs: 5, tokenIntervalMs: 2 } } } });
    harnesses.push(h);
    const res = await h.post('/v1/sweeps', {
      name: 'throughput',
      models: ['llama3.1:8b', 'qwen2.5:7b'],
      gpus: ['RTX 3090', 'RTX 4090'],
      serving: { concurrency: [1, 4], requests_per_level: 4, prompt_tokens: 32, output_tokens: 16 },
      template_hash: OLLAMA_TEMPLATE_HASH,
      max_dph: 1,
      max_total_cost_usd: 5,
      machines_at_once: 2,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const sweep = await pollSweep(h, String(res.body.sweep_id), undefined, 120_000);
    expect(sweep.status, JSON.stringify(sweep.cells)).toBe('succeeded');
    for (const [i, cell] of sweep.cells.entries()) {
      expect(cell.status).toBe('succeeded');
      const dph = sweep.machines.find((m) => m.gpu === cell.gpu)?.dph_total ?? 0;
      // $/h ÷ (output tokens/s × 3600) × 10⁶, at the level with the highest throughput.
      expect(cell.usd_per_million_output_tokens, `cell ${i}`).toBeCloseTo((dph / ((cell.output_tokens_per_s ?? 0) * 3600)) * 1e6, 4);
      expect(cell.ttft_p50_ms).toBeGreaterThan(0);
      expect(cell.accuracy).toBeUndefined();
      const job = JobRecordSchema.parse((await h.get(`/v1/jobs/${cell.job_ids[0]}`)).body);
      expect(job).toMatchObject({ kind: 'serving-benchmark', status: 'succeeded', request: { marketplace: false, concurrency: [1, 4] } });
    }
    const perMillion = sweep.ranking.map((i) => sweep.cells[i]?.usd_per_million_output_tokens ?? Infinity);
    expect(perMillion).toEqual([...perMillion].sort((a, b) => a - b));
    expect(sweep.ranking).toHaveLength(4);
    expect(mustVast(h).callsTo('asks')).toHaveLength(2);
    expect(mustVast(h).liveInstances()).toHaveLength(0);
    const csv = await h.bd.app.inject({ method: 'GET', url: `/v1/sweeps/${sweep.sweep_id}/report?format=csv` });
    const [header, first] = csv.body.split('\r\n');
    const row = Object.fromEntries((header ?? '').split(',').map((column, i) => [column, (first ?? '').split(',')[i]]));
    expect(row).toMatchObject({ rank_tier: '1', status: 'succeeded', accuracy_fraction: '', cost_per_correct_usd: '', pareto: 'false', template_hash: OLLAMA_TEMPLATE_HASH });
    for (const column of ['cost_usd', 'output_tokens_per_s', 'ttft_p50_ms', 'usd_per_million_output_tokens']) expect(row[column], column).toMatch(/^[\d.]+$/);
  }, 180_000);
});
