// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { JobCounts, MarketplaceInstanceEntry, MarketplaceInstanceList, SpendSummary } from '../../../shared';
import { byTestId, click, mount, until, type Mounted } from '../../test-mount';
import { OverviewPage } from './OverviewPage';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const rentedAt = new Date(Date.now() - 3_600_000).toISOString();
const machine = (id: number, patch: Partial<MarketplaceInstanceEntry>): MarketplaceInstanceEntry => ({
  instance_id: id, label: `benchdesk:job-${id}`, job: null, gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.3, rented_at: rentedAt, cost_usd_so_far: 0.3, state: 'running', classification: 'kept', ...patch,
});
const LIST: MarketplaceInstanceList = {
  note: null,
  instances: [
    machine(1, { job: { job_id: 'job-active', kind: 'benchmark', status: 'running' }, classification: 'active' }),
    machine(2, { job: { job_id: 'job-kept', kind: 'llm-instance', status: 'succeeded' }, classification: 'kept', release_error: 'Vast.ai rejected the API key (HTTP 401)' }),
    machine(3, { label: 'benchdesk:9f2c1a:job-elsewhere', classification: 'foreign' }),
  ],
};
const COUNTS: JobCounts = { total: 3, by_status: { queued: 0, running: 1, succeeded: 2, failed: 0, cancelled: 0 }, by_kind: { benchmark: 1, 'agentic-agent': 0, 'llm-instance': 2, suite: 0, 'serving-benchmark': 0 } };
const bucket = { cost_usd: 0, jobs: 0 };
const SPEND: SpendSummary = { tenant_id: 'default', today: { ...bucket, since: rentedAt }, this_month: { ...bucket, since: rentedAt }, by_kind: {}, running: { ...bucket, dph_total: 0 }, computed_at: rentedAt };

function fakeApi() {
  const calls: { op: string; input: unknown }[] = [];
  return {
    calls,
    api: {
      listInstances: async () => LIST,
      getJobCounts: async () => COUNTS,
      getSpendSummary: async () => SPEND,
      listJobs: async () => ({ jobs: [], next_cursor: null }),
      getHealth: async () => ({ status: 'ok' as const, version: '0.1.0', auth: 'enabled' as const }),
      getSettings: async () => {
        throw new Error('not needed');
      },
      cancelJob: async (input: { job_id: string }) => {
        calls.push({ op: 'cancelJob', input });
        return { job_id: input.job_id, status: 'running' as const };
      },
      releaseInstance: async (input: { instance_id: number }) => {
        calls.push({ op: 'releaseInstance', input });
        return { instance_id: input.instance_id, released: true, verified: true, message: 'gone', job_id: null };
      },
    },
  };
}

describe('Overview: machines rented now', () => {
  it('in use: Cancel the job (not Release); kept: Release, with why the last release failed; another install’s: apart, with its label', async () => {
    const fake = fakeApi();
    view = mount(fake.api, <OverviewPage />);
    await until(() => document.querySelector('[data-testid="overview-machines"]') !== null, 'the machines');
    const ours = byTestId(document, 'overview-machines');
    expect(ours.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(byTestId(ours, 'machine-1').dataset.classification).toBe('active');
    // Instances are written as on the job page ("#1").
    expect(ours.querySelector('tbody tr .code-id')?.textContent).toBe('#1');
    expect(ours.querySelector('[data-testid="release-1"]')).toBeNull();
    expect(byTestId(ours, 'cancel-job-job-active').textContent).toBe('Cancel the job');
    expect(byTestId(ours, 'release-error-2').textContent).toContain('Vast.ai rejected the API key');
    expect(ours.textContent).not.toContain('benchdesk:9f2c1a');

    const foreign = byTestId(document, 'overview-foreign-machines');
    expect(foreign.textContent).toContain('Machines of another benchdesk install (1)');
    expect(foreign.textContent).toContain('benchdesk:9f2c1a:job-elsewhere');
    expect(byTestId(foreign, 'release-3').textContent).toBe('Release…');

    // Cancel asks first, then cancels the job that holds the machine.
    click(byTestId(ours, 'cancel-job-job-active'));
    const dialog = document.querySelector<HTMLDialogElement>('[data-testid="machine-cancel-confirm"]');
    expect(dialog?.open).toBe(true);
    expect(fake.calls).toEqual([]);
    click(byTestId(dialog as HTMLElement, 'confirm-ok'));
    await until(() => fake.calls.length === 1, 'the cancel');
    expect(fake.calls).toEqual([{ op: 'cancelJob', input: { job_id: 'job-active' } }]);
  });
});
