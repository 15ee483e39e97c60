import { describe, expect, it } from 'vitest';
import { servingPlanEstimate } from './serving-estimate';

const draft = { concurrency: '1, 2, 4', requests_per_level: '8', output_tokens: '120', warmup_requests: '2', target: 'existing' as const };

describe('servingPlanEstimate', () => {
  it('adds up every level’s waves at the assumed speed', () => {
    // one request: 0.5 s + 120 / 30 = 4.5 s; waves: c=1 → 2 + 8, c=2 → 1 + 4, c=4 → 1 + 2 = 18 waves
    expect(servingPlanEstimate(draft)).toEqual({ requests: 30, outputTokens: 3600, loadSeconds: 81, totalSeconds: 81 });
  });

  it('adds the time to rent and prepare a machine on the marketplace', () => {
    expect(servingPlanEstimate({ ...draft, target: 'marketplace' })?.totalSeconds).toBe(81 + 600);
  });

  it('is null while a field is not a valid number', () => {
    expect(servingPlanEstimate({ ...draft, concurrency: '1, x' })).toBeNull();
    expect(servingPlanEstimate({ ...draft, output_tokens: '' })).toBeNull();
    expect(servingPlanEstimate({ ...draft, concurrency: '0' })).toBeNull();
  });
});
