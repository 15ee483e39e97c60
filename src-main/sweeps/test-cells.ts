import type { SweepCell, SweepRecord } from '../../shared/sweeps';

/** Cells and sweep records for the ranking and report tests (not used by the product). */

export const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'm', gpu: 'g', status: 'succeeded', job_ids: [], cost_usd: 0, ...over });

export function sweep(cells: SweepCell[], request: Partial<SweepRecord['request']> = { suite_id: 'starter' }): SweepRecord {
  return {
    sweep_id: 'sw-test',
    tenant_id: 'default',
    name: 'A | B',
    status: 'succeeded',
    message: '',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    finished_at: null,
    updated_at: '2026-01-01T01:00:00.000Z',
    request: { name: 'x', models: ['a', 'b'], gpus: [], agent: 'builtin', repeat: 1, min_dph: 0, reliability: 0.99, max_total_cost_usd: 5, machines_at_once: 1, ...request },
    spend_usd: 1.5,
    max_total_cost_usd: 5,
    cells,
    machines: [],
    earlier_machines: [],
    ranking: [],
    error: null,
    error_code: null,
  };
}
