import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../../shared';
import { liveSummary, percentile, suiteRows } from './suite-rows';

let seq = 0;
const ev = (event: string, status: JobEvent['status'], labels: JobEvent['labels'], duration_ms: number | null = null, message: string | null = null): JobEvent => ({
  seq: ++seq,
  job_id: 'j',
  event,
  status,
  message,
  duration_ms,
  error_type: null,
  labels,
  recorded_at: '2026-11-20T09:30:00Z',
});

describe('suiteRows from events', () => {
  it('a row appears when a scenario starts and is filled in when it is scored', () => {
    const started = [ev('scenario.started', 'started', { scenario_id: 'a', run: 1 }), ev('scenario.started', 'started', { scenario_id: 'b', run: 1 })];
    const scored = ev('scenario.scored', 'ok', { scenario_id: 'a', run: 1, passed: true, score: 1, matched: 'x\ny', missed: '', answer: 'ans', completion_tokens: 12 }, 1500);
    const rows = suiteRows([...started, scored], null);
    expect(rows.map((r) => [r.scenario_id, r.state, r.passed])).toEqual([
      ['a', 'scored', true],
      ['b', 'running', null],
    ]);
    expect(rows[0]).toMatchObject({ matched: ['x', 'y'], missed: [], answer: 'ans', duration_ms: 1500, completion_tokens: 12 });
  });

  it('planned runs are rows from the start: waiting, then running, then scored', () => {
    const planned = [
      { scenario_id: 'a', run: 1 },
      { scenario_id: 'b', run: 1 },
    ];
    expect(suiteRows([], null, planned).map((r) => r.state)).toEqual(['waiting', 'waiting']);
    const rows = suiteRows([ev('scenario.started', 'started', { scenario_id: 'a', run: 1 })], null, planned);
    expect(rows.map((r) => [r.scenario_id, r.state])).toEqual([
      ['a', 'running'],
      ['b', 'waiting'],
    ]);
    const done = suiteRows([ev('scenario.scored', 'ok', { scenario_id: 'b', run: 1, passed: true, score: 1, completion_tokens: 50 }, 2000)], null, planned);
    expect(done.map((r) => r.state)).toEqual(['waiting', 'scored']);
    expect(liveSummary(done).tokensPerSecond).toBe(25);
  });

  it('a failed scenario keeps its message as the error, counted apart', () => {
    const rows = suiteRows([ev('scenario.scored', 'error', { scenario_id: 'a', run: 2, passed: false, score: 0 }, 10, 'driver timed out')], null);
    expect(rows[0]).toMatchObject({ key: 'a#2', error: 'driver timed out', passed: false });
    expect(liveSummary(rows)).toMatchObject({ passed: 0, scored: 0, errors: 1 });
  });

  it('reads the verdict and who decided from the scored event', () => {
    const labels = { scenario_id: 'a', run: 1, passed: true, rules_passed: false, method: 'judge', score: 0.5, verdict_found: true, verdict_correct: false, verdict_detail: 'misses oom-killed', judge_score: 1, judge_passed: true };
    expect(suiteRows([ev('scenario.scored', 'ok', labels, 10)], null)[0]).toMatchObject({
      method: 'judge',
      rulesPassed: false,
      verdict: { found: true, correct: false, detail: 'misses oom-killed' },
      judge: { score: 1, passed: true },
    });
  });
});

describe('liveSummary', () => {
  it('counts scored rows only, with nearest-rank latency percentiles', () => {
    const rows = suiteRows(
      [
        ev('scenario.scored', 'ok', { scenario_id: 'a', run: 1, passed: true, score: 1 }, 100),
        ev('scenario.scored', 'ok', { scenario_id: 'b', run: 1, passed: false, score: 0.5 }, 300),
        ev('scenario.started', 'started', { scenario_id: 'c', run: 1 }),
      ],
      null,
    );
    expect(liveSummary(rows)).toEqual({ passed: 1, scored: 2, errors: 0, p50: 100, p95: 300, meanScore: 0.75, tokensPerSecond: null });
    expect(percentile([], 50)).toBeNull();
  });
});
