import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../shared';
import { scenarioLine } from './scenario-line';

const event = (over: Partial<JobEvent>): JobEvent => ({
  seq: 1,
  job_id: 'j',
  event: 'scenario.scored',
  status: 'ok',
  message: null,
  duration_ms: 1234,
  error_type: null,
  labels: {},
  recorded_at: '2026-11-20T09:30:00Z',
  ...over,
});

describe('scenarioLine', () => {
  it('one line per scored scenario: position, pass/fail, score, time, tokens, what was missed', () => {
    const line = scenarioLine(event({ labels: { scenario_id: 'oomkilled', index: 2, total: 3, run: 1, passed: false, score: 0.5, completion_tokens: 42, missed: 'the fix' } }));
    expect(line).toMatch(/2\/3 .*fail.* oomkilled {2}50% {2}1\.2 s · 42 tokens out · missed: the fix/);
    expect(scenarioLine(event({ labels: { scenario_id: 'a', passed: true, score: 1, run: 2 } }))).toMatch(/pass.* a \(run 2\) {2}100%/);
    expect(scenarioLine(event({ event: 'scenario.started' }))).toBeNull();
  });
});
