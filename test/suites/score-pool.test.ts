import { afterAll, describe, expect, it } from 'vitest';
import { scoreScenario } from '../../shared/scenario-score';
import { starterSuite } from '../../src-main/suites/starter';
import { createScorePool, ScoringTimeoutError } from '../../src-main/suites/score-pool';

/**
 * Scoring off the main thread with a time limit (issue 34 item 1): the worker scores exactly as
 * the pure scorer does; a pattern that backtracks catastrophically times out, the event loop keeps
 * turning meanwhile, and the next answer is scored by a fresh worker.
 */

const pool = createScorePool({ limitMs: 400 });
afterAll(() => pool.close());

const starter = starterSuite().suite;
const oom = starter.scenarios.find((s) => s.scenario_id === 'oomkilled');
if (!oom) throw new Error('no oomkilled scenario');

// Stored before the pattern check existed: the schema refuses it now, the pool must survive it.
const freezing = { expected: [{ finding: 'a pod name', any_of: ['(\\w+\\s?)+$'] }], must_not: [] };
const fortyLetterPod = `The pod ${'a'.repeat(40)}! is failing`;

describe('the score pool', () => {
  it('scores as the pure scorer does', async () => {
    const answer = oom.fixtures?.[0]?.answer ?? '';
    expect(await pool.score(answer, oom)).toEqual(scoreScenario(answer, oom));
  });

  it('stops an answer that backtracks at its limit, with the event loop free meanwhile, then scores the next one', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      await expect(pool.score(fortyLetterPod, freezing)).rejects.toBeInstanceOf(ScoringTimeoutError);
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
    expect((await pool.score('It was OOMKilled: raise the memory limit of report-worker.', oom)).passed).toBe(true);
  });

  it('counts the fixtures the rules agree with', async () => {
    const agreement = await pool.agreement(starter.scenarios.slice(0, 3));
    expect(agreement?.total).toBe(starter.scenarios.slice(0, 3).reduce((n, s) => n + (s.fixtures?.length ?? 0), 0));
    expect(agreement?.agreed).toBe(agreement?.total);
  });
});
