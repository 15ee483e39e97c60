import { describe, expect, it } from 'vitest';
import type { JobRecord, MarketplaceInstanceEntry } from '../../shared';
import { ev } from '../test-helpers';
import { jobMachine, rentsMachine } from './machines';

const at = '2026-01-01T12:00:00.000Z';
const later = '2026-01-01T12:10:00.000Z';

function job(patch: Omit<Partial<JobRecord>, 'request'> & { kind: JobRecord['kind']; request: Record<string, unknown> }): JobRecord {
  // A record as the API sends it (the stored request keeps only what the test needs).
  return {
    job_id: 'j1', tenant_id: 'default', status: 'succeeded', message: '', created_at: at, started_at: at, finished_at: at, updated_at: at,
    progress: null, result: null, error: null, error_code: null, resources: null, ...patch,
  } as unknown as JobRecord;
}

const keptInstance = job({
  kind: 'llm-instance',
  request: { marketplace: true, model: 'llama3.1:8b', template_hash: 't', min_dph: 0, max_dph: 1, reliability: 0.99, backend_type: 'llmserver', backend_warmup: true, backend_warmup_timeout: 300 },
  resources: { marketplace_instance_id: 7, dph_total: 0.4, rented_at: at, marketplace_stop_instance: false },
  result: {
    mode: 'marketplace', backend_url: 'http://1.2.3.4:5', model_name: 'llama3.1:8b', catalog_model: 'llama3.1:8b', contract_id: 7,
    offer: { id: 1, gpu_name: 'RTX 4090', num_gpus: 1, gpu_ram: 24564, dph_total: 0.4 }, dph_total: 0.4, rented_at: at, instance_running: true, backend_auth: null, message: 'up',
  },
});

const entry = (patch: Partial<MarketplaceInstanceEntry> = {}): MarketplaceInstanceEntry => ({
  instance_id: 7, label: 'benchdesk:j1', job: { job_id: 'j1', kind: 'llm-instance', status: 'succeeded' }, gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.4, rented_at: at,
  cost_usd_so_far: 0.07, state: 'running', classification: 'kept', ...patch,
});

describe('the machine of a job', () => {
  it('a job on its own backend rents nothing', () => {
    const own = job({ kind: 'agentic-agent', request: { question: 'q', model: 'm', agent: 'builtin', backend_url: 'http://x' } });
    expect(rentsMachine(own)).toBe(false);
    expect(jobMachine(own, { listed: true, entries: [] })).toEqual({ state: 'none', why: 'own-backend' });
  });

  it('a marketplace job that failed before renting rented nothing; one still searching has not rented yet', () => {
    const failed = job({ kind: 'benchmark', status: 'failed', request: { marketplace: true, max_dph: 0.1 }, error_code: 'no_offers' });
    expect(jobMachine(failed, { listed: true, entries: [] })).toEqual({ state: 'none', why: 'ended-before-renting' });
    expect(jobMachine({ ...failed, status: 'running', finished_at: null }, { listed: false, entries: [] })).toEqual({ state: 'none', why: 'not-yet' });
  });

  it('a kept llm-instance machine the marketplace lists is billing, with its GPU, rate and start', () => {
    const m = jobMachine(keptInstance, { listed: true, entries: [entry()] });
    expect(m).toMatchObject({ state: 'billing', instanceId: 7, gpu: '1× RTX 4090', dph: 0.4, rentedAt: at, releasedAt: null, kept: true });
  });

  it('released once the job records it, at the destroy event, even if the list is older', () => {
    const released = { ...keptInstance, updated_at: later, resources: { ...keptInstance.resources, marketplace_instance_released: true } };
    const destroy = ev(5, 'marketplace.instance.destroy', 'ok', { recorded_at: '2026-01-01T12:05:00.000Z' });
    expect(jobMachine(released, { listed: true, entries: [entry()] }, [destroy])).toMatchObject({ state: 'released', releasedAt: '2026-01-01T12:05:00.000Z' });
    // Without the event: the record's last update (the release wrote it).
    expect(jobMachine(released, { listed: false, entries: [] })).toMatchObject({ state: 'released', releasedAt: later });
  });

  it('gone from a list that was read means released; no list (no key) keeps the record’s word', () => {
    expect(jobMachine(keptInstance, { listed: true, entries: [] })).toMatchObject({ state: 'released' });
    expect(jobMachine(keptInstance, { listed: false, entries: [] })).toMatchObject({ state: 'billing' });
  });

  it('a list read before the machine was rented says nothing about it', () => {
    expect(jobMachine(keptInstance, { listed: true, entries: [], listedAt: Date.parse(at) - 1000 })).toMatchObject({ state: 'billing' });
    expect(jobMachine(keptInstance, { listed: true, entries: [], listedAt: Date.parse(at) + 60_000 })).toMatchObject({ state: 'released' });
  });

  it('a running job’s machine is not called released because the list predates the rent', () => {
    const running = { ...keptInstance, status: 'running' as const, result: null, finished_at: null };
    expect(jobMachine(running, { listed: true, entries: [] })).toMatchObject({ state: 'billing', instanceId: 7 });
  });
});
