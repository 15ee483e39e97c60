import { describe, expect, it } from 'vitest';
import { jobCost, jobCostUsd, type JobRecord } from '../../shared';

/** What a job has cost, as the Jobs list and the CLI show it: the ledger's final figure once its machine is released. */

const T0 = Date.parse('2026-11-22T10:00:00Z');
function job(over: Record<string, unknown>): JobRecord {
  return {
    job_id: 'j1',
    tenant_id: 'default',
    kind: 'benchmark',
    status: 'succeeded',
    finished_at: new Date(T0 + 60_000).toISOString(),
    updated_at: new Date(T0 + 60_000).toISOString(),
    request: {},
    result: { cost: { dph_total: 0.36, rented_seconds: 60, cost_usd: 0.006 + 0.01 } },
    ...over,
  } as unknown as JobRecord;
}

describe('jobCost', () => {
  it('a benchmark that kept its machine bills on after the job until the machine is released', () => {
    const kept = job({ resources: { marketplace_instance_id: 7, marketplace_instance_released: false, marketplace_stop_instance: false, dph_total: 0.36, rented_at: new Date(T0).toISOString(), download_usd: 0.01 } });
    expect(jobCost(kept)).toEqual({ type: 'running', dph: 0.36, since: new Date(T0).toISOString(), downloadUsd: 0.01 });
    // An hour on: $0.36 of machine time and the download, more than the result said at the job's end.
    expect(jobCostUsd(kept, T0 + 3_600_000)).toBeCloseTo(0.37, 9);
  });

  it('once released, the ledger\'s final cost: it never drops below what was shown while it billed', () => {
    const released = job({ resources: { marketplace_instance_id: 7, marketplace_instance_released: true, marketplace_stop_instance: false, dph_total: 0.36, rented_at: new Date(T0).toISOString(), download_usd: 0.01, cost_usd: 0.37 } });
    expect(jobCost(released)).toEqual({ type: 'final', usd: 0.37, dph: 0.36 });
  });

  it('a job released at its teardown keeps its result cost; a record of an earlier version without cost_usd is read as before', () => {
    const tornDown = job({ resources: { marketplace_instance_id: 7, marketplace_instance_released: true, marketplace_stop_instance: true, dph_total: 0.36, rented_at: new Date(T0).toISOString() } });
    expect(jobCost(tornDown)).toEqual({ type: 'final', usd: 0.016, dph: 0.36 });
  });
});
