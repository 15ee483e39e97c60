import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../../shared';
import { bestRows, isRateRun, servingRows } from './serving-model';

let seq = 0;
const event = (status: JobEvent['status'], labels: JobEvent['labels']): JobEvent => ({
  seq: ++seq,
  job_id: 'j',
  event: 'serving.level',
  status,
  message: null,
  duration_ms: null,
  error_type: null,
  labels,
  recorded_at: '2026-01-01T00:00:00Z',
});

describe('servingRows', () => {
  it('has a row per requested level from the start: finished ones from their events, the running one, the rest waiting', () => {
    const events = [
      event('started', { level: 1, concurrency: 1 }),
      event('ok', { level: 1, concurrency: 1, requests: 8, failed: 0, output_tokens_per_s: 50, ttft_p50_ms: 120, ttft_p99_ms: 150, usd_per_million_output_tokens: 2, mean_output_tokens: 40, early_stop_requests: 3, warnings: 'a | b' }),
      event('started', { level: 2, concurrency: 4 }),
    ];
    const rows = servingRows({ concurrency: [1, 4, 8] }, null, events, false);
    expect(rows.map((r) => [r.label, r.x, r.state])).toEqual([['1', 1, 'done'], ['4', 4, 'running'], ['8', 8, 'waiting']]);
    expect(rows[0]).toMatchObject({ requests: 8, outputTokensPerS: 50, ttftP50: 120, ttftP99: 150, usdPerMillion: 2, meanOutputTokens: 40, earlyStops: 3, warnings: ['a', 'b'] });
    expect(rows[1]?.outputTokensPerS).toBeNull();
  });

  it('the default levels without concurrency; rate levels labelled, "all at once" placed past the highest rate', () => {
    expect(servingRows({}, null, [], false).map((r) => r.x)).toEqual([1, 2, 4, 8]);
    const request = { request_rate: [0.5, 4, 'inf' as const] };
    expect(isRateRun(request)).toBe(true);
    expect(servingRows(request, null, [], false).map((r) => [r.label, r.x])).toEqual([['0.5 req/s', 0.5], ['4 req/s', 4], ['all at once', 8]]);
  });

  it('marks a level where every request failed, and the levels a job that ended never finished', () => {
    const events = [event('error', { level: 1, concurrency: 2, requests: 0, failed: 4, first_error: 'model not found' }), event('started', { level: 2, concurrency: 4 })];
    const rows = servingRows({ concurrency: [2, 4, 8] }, null, events, true);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'not-run', 'not-run']);
    expect(rows[0]?.firstError).toBe('model not found');
  });
});

describe('bestRows', () => {
  it('names the fastest level, the cheapest priced one and the fastest meeting the SLO', () => {
    const rows = servingRows({ concurrency: [1, 2, 4] }, null, [
      event('ok', { level: 1, requests: 4, output_tokens_per_s: 40, usd_per_million_output_tokens: 3, slo_attainment: 1 }),
      event('ok', { level: 2, requests: 4, output_tokens_per_s: 90, usd_per_million_output_tokens: 1.2, slo_attainment: 0.995 }),
      event('ok', { level: 3, requests: 4, output_tokens_per_s: 80, usd_per_million_output_tokens: 1.1, slo_attainment: 0.5 }),
    ], true);
    const best = bestRows(rows);
    expect(best.fastest?.label).toBe('2');
    expect(best.cheapest?.label).toBe('4');
    expect(best.bySlo?.label).toBe('2');
  });
});
