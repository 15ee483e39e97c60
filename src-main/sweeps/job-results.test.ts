import { describe, expect, it } from 'vitest';
import type { SweepJobEnd } from './ports';
import { cellOutcome, costPerCorrect, readServingResult, readSuiteResult, ResultShapeError, usdPerMillionTokens } from './job-results';

const ok = (result: unknown): SweepJobEnd => ({ status: 'succeeded', result, error: null, error_code: null });
const failed = (error: string): SweepJobEnd => ({ status: 'failed', result: null, error, error_code: 'x' });
const suite = (passed: number, total: number, minutes: number, over: Record<string, unknown> = {}) => ({
  summary: { accuracy: passed / total, passed, total, ...over },
  phases: [{ name: 'warmup', duration_ms: 60_000 }, { name: 'analysis', duration_ms: (minutes - 1) * 60_000 }],
});
const serving = { levels: [{ concurrency: 1, output_tokens_per_s: 10, ttft_ms: { p50: 5, p99: 9 } }, { concurrency: 8, output_tokens_per_s: 100, ttft_ms: { p50: 30, p99: 80 } }] };

describe('job results', () => {
  it('reads the suite figures, its interval, its own time and the tags; a result without them is a clear error', () => {
    const figures = readSuiteResult({ ...suite(1, 2, 2), scenarios: [{ scenario_id: 'x', passed: true }, { scenario_id: 'y', passed: false }], other: 1 }, (id) => (id === 'x' ? ['oom'] : ['oom', 'pending']));
    expect(figures).toEqual({ accuracy: 0.5, accuracy_ci95: [0.0945, 0.9055], passed: 1, total: 2, errors: 0, suite_seconds: 120, tags: { oom: { passed: 1, total: 2, accuracy: 0.5 }, pending: { passed: 0, total: 1, accuracy: 0 } } });
    expect(readSuiteResult(suite(1, 3, 1, { errors: 1, accuracy_ci95: [0.1, 0.9] }))).toMatchObject({ errors: 1, accuracy_ci95: [0.1, 0.9] });
    expect(() => readSuiteResult({ answer: 'x' })).toThrow(ResultShapeError);
  });

  it('the best serving level is the highest throughput, with its TTFT p50 and p99', () => {
    expect(readServingResult(serving)).toEqual({ output_tokens_per_s: 100, ttft_p50_ms: 30, ttft_p99_ms: 80, concurrency: 8 });
  });

  it('money: $/1M tokens and $ per correct answer', () => {
    expect(usdPerMillionTokens(0.36, 100)).toBe(1);
    expect(usdPerMillionTokens(0.36, 0)).toBeUndefined();
    expect(costPerCorrect(0.3, 3)).toBe(0.1);
    expect(costPerCorrect(0.3, 0)).toBeUndefined();
  });
});

describe('cellOutcome', () => {
  it('$ per correct answer counts the suite’s own time only; the serving figures beside it', () => {
    // $0.60/h: the 10-minute suite costs $0.10; 5 correct → $0.02 each, whatever the serving benchmark took.
    const { figures, failure } = cellOutcome([{ kind: 'suite', end: ok(suite(5, 10, 10)) }, { kind: 'serving-benchmark', end: ok(serving) }], { dph: 0.6 });
    expect(failure).toBeNull();
    expect(figures).toMatchObject({ accuracy: 0.5, passed: 5, total: 10, errors: 0, suite_cost_usd: 0.1, cost_per_correct_usd: 0.02, output_tokens_per_s: 100, ttft_p99_ms: 80, usd_per_million_output_tokens: 1.666667 });
    expect(figures.accuracy_ci95).toEqual([0.2366, 0.7634]);
  });

  it('a failed serving job keeps the suite figures, with serving_error', () => {
    const { figures, failure } = cellOutcome([{ kind: 'suite', end: ok(suite(5, 10, 10)) }, { kind: 'serving-benchmark', end: failed('no answer') }], { dph: 0.6 });
    expect(failure).toBeNull();
    expect(figures).toMatchObject({ accuracy: 0.5, cost_per_correct_usd: 0.02, serving_error: 'the serving-benchmark job failed: no answer' });
    expect(figures.output_tokens_per_s).toBeUndefined();
  });

  it('a failed suite fails the cell; so does a failed serving job in a serving-only sweep', () => {
    expect(cellOutcome([{ kind: 'suite', end: failed('boom') }], { dph: 1 }).failure).toBe('the suite job failed: boom');
    expect(cellOutcome([{ kind: 'serving-benchmark', end: failed('boom') }], { dph: 1 }).failure).toBe('the serving-benchmark job failed: boom');
    expect(cellOutcome([{ kind: 'suite', end: ok({ nope: 1 }) }], { dph: 1 }).failure).toMatch(/does not have the figures a sweep reads/);
  });

  it('no correct answer: no $ per correct answer', () => {
    expect(cellOutcome([{ kind: 'suite', end: ok(suite(0, 10, 10)) }], { dph: 0.6 }).figures.cost_per_correct_usd).toBeUndefined();
  });
});
