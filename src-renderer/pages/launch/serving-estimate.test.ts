import { describe, expect, it } from 'vitest';
import { servingPlanEstimate } from './serving-estimate';

const draft = {
  concurrency: '1, 2, 4',
  requests_per_level: '8',
  output_tokens: '120',
  warmup_requests: '2',
  target: 'existing' as const,
  level_mode: 'concurrency' as const,
  request_rate: '1, 4',
  max_concurrency: '',
  length_mode: 'requests' as const,
  duration_s: '60',
};

describe('servingPlanEstimate', () => {
  it('adds up every level’s waves at the assumed speed', () => {
    // one request: 0.5 s + 120 / 30 = 4.5 s; waves: c=1 → 2 + 8, c=2 → 1 + 4, c=4 → 1 + 2 = 18 waves
    expect(servingPlanEstimate(draft)).toEqual({ requests: 30, outputTokens: 3600, loadSeconds: 81, totalSeconds: 81 });
  });

  it('takes each level’s default (at least 32 and 3 waves) when the request count is left empty', () => {
    // c=1, 2, 4 → 32 requests each (3 × 4 = 12 < 32), plus 2 warm-up
    expect(servingPlanEstimate({ ...draft, requests_per_level: '' })?.requests).toBe(3 * 34);
  });

  it('rate levels: the arrivals’ span (n ÷ rate) plus one request to drain; a duration sets n = rate × duration', () => {
    // The default of a rate level: 3 × (10 s of arrivals), at least 32. Rate 1: 32 requests over 32 s + 4.5 + 2 × 4.5;
    // rate 4: 120 requests over 30 s + 4.5 + 9.
    expect(servingPlanEstimate({ ...draft, level_mode: 'rate', requests_per_level: '' })).toMatchObject({ requests: 34 + 122, loadSeconds: Math.round(32 + 13.5 + 30 + 13.5) });
    expect(servingPlanEstimate({ ...draft, level_mode: 'rate', length_mode: 'duration', duration_s: '30' })?.requests).toBe(32 + 122);
  });

  it('adds the time to rent and prepare a machine on the marketplace', () => {
    expect(servingPlanEstimate({ ...draft, target: 'marketplace' })?.totalSeconds).toBe(81 + 600);
  });

  it('is null while a field is not a valid number', () => {
    expect(servingPlanEstimate({ ...draft, concurrency: '1, x' })).toBeNull();
    expect(servingPlanEstimate({ ...draft, output_tokens: '' })).toBeNull();
    expect(servingPlanEstimate({ ...draft, concurrency: '0' })).toBeNull();
    expect(servingPlanEstimate({ ...draft, level_mode: 'rate', request_rate: 'fast' })).toBeNull();
  });
});
