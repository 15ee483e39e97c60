// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { SweepCell, SweepMachine, SweepRecord } from '../../../shared';
import { byTestId, mount, type Mounted } from '../../test-mount';
import { SweepMatrix, cellMeter } from './SweepMatrix';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'llama3.1:8b', gpu: 'RTX 3090', status: 'pending', job_ids: [], cost_usd: 0, ...over });
const machine = (over: Partial<SweepMachine>): SweepMachine => ({ gpu: 'RTX 3090', status: 'running', machine_id: 'sw-1-g0-a1', dph_total: 0.36, rented_at: new Date(Date.now() - 3_600_000).toISOString(), cost_usd: 0, ...over });

function sweepOf(cells: SweepCell[], machines: SweepMachine[]): SweepRecord {
  const now = new Date().toISOString();
  return {
    sweep_id: 'sw-1',
    tenant_id: 'default',
    name: 's',
    status: 'running',
    message: 'running',
    created_at: now,
    started_at: now,
    finished_at: null,
    updated_at: now,
    request: {} as SweepRecord['request'],
    spend_usd: 0,
    max_total_cost_usd: 5,
    cells,
    machines,
    earlier_machines: [],
    ranking: [],
    error: null,
    error_code: null,
  };
}

describe('SweepMatrix', () => {
  it('a running cell shows the $/h its machine bills at, never $0.00 (the one live cost of the screen is the sweep’s spend)', () => {
    const sweep = sweepOf([cell({ status: 'running', started_at: new Date(Date.now() - 600_000).toISOString() }), cell({ model: 'qwen2.5:7b' })], [machine({})]);
    view = mount({}, <SweepMatrix sweep={sweep} metric="accuracy" selected={null} onSelect={() => undefined} />);
    expect(byTestId(view.container, 'sweep-cell-0').textContent).toContain('at $0.36/h');
    expect(byTestId(view.container, 'sweep-cell-0').textContent).not.toContain('$0.00');
    // A waiting cell has cost nothing yet and says so by showing no figure.
    expect(byTestId(view.container, 'sweep-cell-1').textContent).not.toContain('$');
  });

  it('no meter without a running machine with a price, or before the cell started', () => {
    const running = cell({ status: 'running', started_at: new Date().toISOString() });
    expect(cellMeter(sweepOf([running], [machine({ status: 'renting', dph_total: undefined })]), running)).toBeNull();
    expect(cellMeter(sweepOf([running], [machine({ gpu: 'RTX 4090' })]), running)).toBeNull();
    const waiting = cell({ status: 'running' });
    expect(cellMeter(sweepOf([waiting], [machine({})]), waiting)).toBeNull();
    expect(cellMeter(sweepOf([running], [machine({})]), running)).toEqual({ dph: 0.36, since: running.started_at });
  });
});
