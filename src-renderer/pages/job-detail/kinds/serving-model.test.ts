import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../../shared';
import { bestRows, servingRows } from './serving-model';

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
      event('started', { concurrency: 1 }),
      event('ok', { concurrency: 1, requests: 8, failed: 0, output_tokens_per_s: 50, ttft_p50_ms: 120, ttft_p99_ms: 150, usd_per_million_output_tokens: 2 }),
      event('started', { concurrency: 4 }),
    ];
    const rows = servingRows([1, 4, 8], null, events, false);
    expect(rows.map((r) => [r.concurrency, r.state])).toEqual([[1, 'done'], [4, 'running'], [8, 'waiting']]);
    expect(rows[0]).toMatchObject({ requests: 8, outputTokensPerS: 50, ttftP50: 120, ttftP99: 150, usdPerMillion: 2 });
    expect(rows[1]?.outputTokensPerS).toBeNull();
  });

  it('marks a level where every request failed, and the levels a job that ended never finished', () => {
    const events = [event('error', { concurrency: 2, requests: 0, failed: 4, first_error: 'model not found' }), event('started', { concurrency: 4 })];
    const rows = servingRows([2, 4, 8], null, events, true);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'not-run', 'not-run']);
    expect(rows[0]?.firstError).toBe('model not found');
  });
});

describe('bestRows', () => {
  it('names the fastest level and the cheapest priced one', () => {
    const rows = servingRows([1, 2, 4], null, [
      event('ok', { concurrency: 1, requests: 4, output_tokens_per_s: 40, usd_per_million_output_tokens: 3 }),
      event('ok', { concurrency: 2, requests: 4, output_tokens_per_s: 90, usd_per_million_output_tokens: 1.2 }),
      event('ok', { concurrency: 4, requests: 4, output_tokens_per_s: 80, usd_per_million_output_tokens: 1.1 }),
    ], true);
    const best = bestRows(rows);
    expect(best.fastest?.concurrency).toBe(2);
    expect(best.cheapest?.concurrency).toBe(4);
  });
});
