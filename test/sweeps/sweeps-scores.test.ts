import { afterEach, describe, expect, it } from 'vitest';
import type { SweepReport } from '../../shared';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { startHarness, type Harness } from '../workflows/harness';
import { heldRunner, pollSweep, servingResult, suiteResult } from './helpers';

/**
 * Sweeps that rank honestly (design §12b): the judge goes to every suite job (and may not be a
 * model under test), a failed serving benchmark keeps the cell's suite figures, $ per correct
 * answer counts the suite's own time, and the constraints give the report its headline.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function harness(runner: ReturnType<typeof heldRunner>): Promise<Harness> {
  const h = await startHarness({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS }, extra: { sweepTuning: { runner: runner.runner } } });
  cleanups.push(() => h.close());
  return h;
}

const body = (over: Record<string, unknown> = {}) => ({
  name: 'honest ranking',
  models: ['llama3.1:8b', 'qwen2.5:7b'],
  gpus: ['RTX 3090'],
  suite_id: 'starter',
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 2,
  max_total_cost_usd: 5,
  ...over,
});

/** A suite result with its own time (5 minutes): what $ per correct answer is counted from. */
const timedSuite = (passed: number) => ({ ...(suiteResult(passed, 10) as object), phases: [{ name: 'analysis', status: 'ok', started_at: '2026-01-01T00:00:00.000Z', duration_ms: 300_000 }] });

describe('sweeps rank honestly', () => {
  it('refuses a judge that is one of the models, and a judge without a suite', async () => {
    const h = await harness(heldRunner());
    const self = await h.post('/v1/sweeps', body({ judge: { model: 'qwen2.5:7b' } }));
    expect(self.status).toBe(422);
    expect(self.body.errors).toEqual([expect.objectContaining({ path: 'judge.model', message: expect.stringMatching(/is the model under test \(qwen2\.5:7b\)/) })]);
    const noSuite = await h.post('/v1/sweeps', body({ suite_id: undefined, serving: { concurrency: [1] }, judge: { model: 'gemma:2b' } }));
    expect(noSuite.status).toBe(422);
    expect(noSuite.body.errors).toEqual([expect.objectContaining({ path: 'judge' })]);
  });

  it('sends the judge to every suite job, counts $ per correct answer from the suite’s time, ties overlapping cells and answers the constraints', async () => {
    const runner = heldRunner({
      result: (kind, model) => (kind === 'suite' ? timedSuite(model.startsWith('llama') ? 9 : 6) : servingResult(80)),
    });
    const h = await harness(runner);
    const res = await h.post('/v1/sweeps', body({ judge: { model: 'gemma:2b' }, serving: { concurrency: [1], requests_per_level: 4 }, constraints: { min_accuracy: 0.5, max_usd_per_correct: 10 } }));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const sweep = await pollSweep(h, String(res.body.sweep_id));
    for (const job of runner.jobs.filter((j) => j.kind === 'suite')) expect(job.request.judge).toEqual({ model: 'gemma:2b', allow_self_judge: false });
    expect(sweep.cells.every((c) => c.status === 'succeeded')).toBe(true);
    const dph = sweep.machines[0]?.dph_total ?? 0;
    for (const c of sweep.cells) {
      // The suite job said it took 5 minutes: that, at the machine's $/h, plus the model's pull, is what its answers cost.
      expect(c.download_usd).toBeGreaterThan(0);
      expect(c.suite_cost_usd).toBeCloseTo((dph * 5) / 60 + (c.download_usd ?? 0), 5);
      expect(c.cost_per_correct_usd).toBeCloseTo((c.suite_cost_usd ?? 0) / (c.passed ?? 1), 5);
      expect(c.accuracy_ci95).toHaveLength(2);
      expect(c.rank_tier).toBe(1);
    }
    const report = (await h.get(`/v1/sweeps/${sweep.sweep_id}/report`)).body as SweepReport;
    expect(report.constraints).toEqual({ min_accuracy: 0.5, max_usd_per_correct: 10 });
    expect(report.headline).toMatchObject({ met: true, text: expect.stringMatching(/is the cheapest cell that meets accuracy ≥ 50%, \$ per correct answer ≤ \$10$/) });
    expect(report.rows.map((r) => r.rank)).toEqual([1, 1]);
    expect(report.manifest).toMatchObject({ suite_id: 'starter', template: { hash: OLLAMA_TEMPLATE_HASH, name: null }, request: { judge: { model: 'gemma:2b' } } });
  });

  it('a failed serving job leaves the suite figures standing, with serving_error', async () => {
    const runner = heldRunner({ hold: true, result: (kind) => (kind === 'suite' ? timedSuite(7) : servingResult(80)) });
    const h = await harness(runner);
    const res = await h.post('/v1/sweeps', body({ models: ['llama3.1:8b'], serving: { concurrency: [1], requests_per_level: 4 } }));
    const id = String(res.body.sweep_id);
    const next = async (kind: string) => {
      for (;;) {
        const job = runner.jobs.find((j) => j.kind === kind);
        if (job) return job;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    (await next('suite')).finish();
    (await next('serving-benchmark')).finish({ status: 'failed', result: null, error: 'the backend stopped answering', error_code: 'upstream_error' });
    const sweep = await pollSweep(h, id);
    expect(sweep.cells[0]).toMatchObject({ status: 'succeeded', accuracy: 0.7, passed: 7, serving_error: 'the serving-benchmark job failed: the backend stopped answering' });
    expect(sweep.cells[0]?.output_tokens_per_s).toBeUndefined();
    expect(sweep.ranking).toEqual([0]);
    const md = await h.bd.app.inject({ method: 'GET', url: `/v1/sweeps/${id}/report?format=md` });
    expect(md.body).toContain('serving failed: the serving-benchmark job failed: the backend stopped answering');
  });
});
