// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { SweepCell, SweepMachine, SweepRecord } from '../../../shared';
import { byTestId, mount, type Mounted } from '../../test-mount';
import { SweepMachineFact, findSweepOfJob } from './SweepOfJob';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'llama3.1:8b', gpu: 'RTX 3090', status: 'succeeded', job_ids: [], cost_usd: 0.01, ...over });
const machine = (gpu: string, dph: number): SweepMachine => ({ gpu, status: 'released', machine_id: `m-${gpu}`, dph_total: dph, cost_usd: 0.02 });

function sweep(id: string, cells: SweepCell[], machines: SweepMachine[], earlier: SweepMachine[] = []): SweepRecord {
  const at = '2026-11-27T10:00:00.000Z';
  return { sweep_id: id, tenant_id: 'default', name: `sweep ${id}`, status: 'succeeded', message: '', created_at: at, started_at: at, finished_at: at, updated_at: at, request: {} as SweepRecord['request'], spend_usd: 0.02, max_total_cost_usd: 5, cells, machines, earlier_machines: earlier, ranking: [], error: null, error_code: null };
}

describe('the sweep a job belongs to', () => {
  const sweeps = [
    sweep('sw-a', [cell({ job_ids: ['j1'] })], [machine('RTX 3090', 0.2)]),
    sweep('sw-b', [cell({ gpu: 'RTX 4090', job_ids: ['j2', 'j3'] })], [], [machine('RTX 4090', 0.4)]),
  ];

  it('finds the cell that ran the job, and its machine (also one from before a restart); none for another job', () => {
    expect(findSweepOfJob(sweeps, 'j1')).toMatchObject({ sweep: { sweep_id: 'sw-a' }, cell: { gpu: 'RTX 3090' }, machine: { dph_total: 0.2 } });
    expect(findSweepOfJob(sweeps, 'j3')).toMatchObject({ sweep: { sweep_id: 'sw-b' }, machine: { gpu: 'RTX 4090', dph_total: 0.4 } });
    expect(findSweepOfJob(sweeps, 'j9')).toBeNull();
  });

  it('says whose machine it ran on, at what rate, billed to the sweep, with a link to the sweep', () => {
    const of = findSweepOfJob(sweeps, 'j2');
    if (!of) throw new Error('no sweep found');
    view = mount({}, <dl><SweepMachineFact of={of} /></dl>);
    const fact = byTestId(view.container, 'job-sweep-machine');
    expect(fact.textContent).toMatch(/RTX 4090 machine of sweep “sweep sw-b” at \$0\.40\/h/);
    expect(fact.textContent).toContain('billed to the sweep');
    expect(fact.querySelector('a')?.getAttribute('href')).toBe('#/sweeps/sw-b');
  });
});
