import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../shared/manifest';
import type { SweepCell } from '../../shared/sweeps';
import { buildReport, headlineOf, paretoFront, rankCells, rankSweep, sweepManifest } from './ranking';
import { cell, sweep } from './test-cells';

/** A suite cell of `passed` of `total`, at `perCorrect` $ per correct answer. */
const scoredCell = (model: string, passed: number, total: number, perCorrect: number, over: Partial<SweepCell> = {}) =>
  cell({ model, accuracy: passed / total, passed, total, cost_per_correct_usd: perCorrect, suite_cost_usd: perCorrect * passed, cost_usd: perCorrect * passed, ...over });

describe('ranking', () => {
  it('cells whose 95% intervals overlap the leader’s share its tier; within a tier the cheaper correct answer comes first', () => {
    const cells = [
      scoredCell('eight', 8, 10, 0.01),
      scoredCell('nine', 9, 10, 0.05),
      scoredCell('eight-again', 8, 10, 0.01),
      scoredCell('low', 20, 100, 0.001),
      cell({ model: 'failed', status: 'failed' }),
    ];
    const s = sweep(cells);
    rankSweep(s);
    // 9/10 is not better than 8/10 on ten scenarios: one tier, the cheaper first; exact ties share it in matrix order.
    expect(s.ranking.map((i) => s.cells[i]?.model)).toEqual(['eight', 'eight-again', 'nine', 'low']);
    expect(s.cells.map((c) => c.rank_tier)).toEqual([1, 1, 1, 2, undefined]);
    // The report's rank is the tier: ties are shown as ties.
    expect(buildReport(s).rows.map((r) => [r.model, r.rank])).toEqual([
      ['eight', 1],
      ['eight-again', 1],
      ['nine', 1],
      ['low', 2],
      ['failed', null],
    ]);
  });

  it('enough answers separate the tiers', () => {
    const cells = [scoredCell('ninety', 90, 100, 0.05), scoredCell('seventy', 70, 100, 0.01)];
    const s = sweep(cells);
    rankSweep(s);
    expect(s.cells.map((c) => c.rank_tier)).toEqual([1, 2]);
    expect(rankCells(cells, 'accuracy')).toEqual([0, 1]);
  });

  it('a serving-only sweep ranks by $ per million output tokens, then throughput; equal figures share a tier', () => {
    const cells = [
      cell({ model: 'a', usd_per_million_output_tokens: 2, output_tokens_per_s: 50 }),
      cell({ model: 'b', usd_per_million_output_tokens: 1, output_tokens_per_s: 40 }),
      cell({ model: 'c', usd_per_million_output_tokens: 1, output_tokens_per_s: 40 }),
      cell({ model: 'd', status: 'budget_exceeded' }),
    ];
    const s = sweep(cells, { suite_id: undefined });
    rankSweep(s);
    expect(s.ranking).toEqual([1, 2, 0]);
    expect(s.cells.map((c) => c.rank_tier)).toEqual([2, 1, 1, undefined]);
  });

  it('the Pareto front: cells with a correct answer that no other beats on accuracy and the suite’s cost', () => {
    const cells = [
      cell({ accuracy: 0.9, passed: 9, total: 10, cost_usd: 9, suite_cost_usd: 3 }),
      cell({ accuracy: 0.8, passed: 8, total: 10, cost_usd: 1 }),
      cell({ accuracy: 0.7, passed: 7, total: 10, cost_usd: 2 }), // dominated by the second
      cell({ accuracy: 0.9, passed: 9, total: 10, cost_usd: 4 }), // dominated by the first (its suite cost is 3)
      cell({ accuracy: 0.95, passed: 19, total: 20, cost_usd: 10 }),
      cell({ accuracy: 1, passed: 1, total: 1, cost_usd: 0.1, status: 'failed' }),
      cell({ accuracy: 0, passed: 0, total: 10, cost_usd: 0.01 }), // cheapest, but nothing correct: never on the front
    ];
    expect(paretoFront(cells)).toEqual([1, 0, 4]);
  });
});

describe('constraints and the headline', () => {
  const cells = [
    scoredCell('big', 9, 10, 0.08, { ttft_p99_ms: 300, usd_per_million_output_tokens: 3 }),
    scoredCell('mid', 8, 10, 0.02, { ttft_p99_ms: 700, usd_per_million_output_tokens: 1 }),
    scoredCell('small', 5, 10, 0.01, { ttft_p99_ms: 200, usd_per_million_output_tokens: 0.5 }),
    cell({ model: 'broken', status: 'failed' }),
  ];
  it('names the cheapest cell that meets every constraint', () => {
    expect(headlineOf(cells, { min_accuracy: 0.75 }, 'accuracy')).toEqual({ met: true, cell: 1, text: 'mid on g is the cheapest cell that meets accuracy ≥ 75%', unmet: [] });
    expect(headlineOf(cells, { min_accuracy: 0.75, max_ttft_p99_ms: 500 }, 'accuracy')).toMatchObject({ met: true, cell: 0 });
    expect(headlineOf(cells, undefined, 'accuracy')).toBeNull();
  });
  it('says which constraint nothing met, with the best figure there is, or that none meets them at once', () => {
    expect(headlineOf(cells, { min_accuracy: 0.95, max_usd_per_correct: 0.05 }, 'accuracy')).toEqual({ met: false, cell: null, text: 'nothing met accuracy ≥ 95% (the best is 90%)', unmet: ['min_accuracy'] });
    expect(headlineOf(cells, { min_accuracy: 0.85, max_usd_per_correct: 0.05 }, 'accuracy')).toEqual({
      met: false,
      cell: null,
      text: 'no cell meets accuracy ≥ 85% and $ per correct answer ≤ $0.05 at once; each is met by some cell',
      unmet: [],
    });
  });
});

describe('the sweep manifest', () => {
  const m = (over: Partial<Manifest>): Manifest => ({
    benchdesk_version: '0.1.0', suite_id: 'starter', suite_sha256: 'a'.repeat(64), snapshot_sha256: { s: 'b'.repeat(64) }, model: 'x', model_digest: 'd1', backend_api: 'ollama', backend_version: '0.15.2',
    agent: 'builtin', agent_version: '0.1.0', temperature: 0, seed: null, num_ctx: null, template: null, machine: null, request: {}, started_at: null, ...over,
  });
  it('keeps what the cells agree on, nulls what they differ on, and carries the request', () => {
    const s = sweep([cell({ manifest: m({ model_digest: 'd1' }) }), cell({ manifest: m({ model_digest: 'd2' }) })], { suite_id: 'starter', template_hash: 'tpl' });
    expect(sweepManifest(s)).toMatchObject({ suite_id: 'starter', suite_sha256: 'a'.repeat(64), snapshot_sha256: { s: 'b'.repeat(64) }, model: null, model_digest: null, backend_version: '0.15.2', agent: 'builtin', agent_version: '0.1.0', temperature: 0, template: { hash: 'tpl', name: null }, request: { suite_id: 'starter' }, started_at: '2026-01-01T00:00:01.000Z' });
  });
});
