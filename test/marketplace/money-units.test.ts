import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared';
import { classifyByJob as classifyInstance, classifyMachine, createInstanceService } from '../../src-main/app/instances';
import { HeldKeys } from '../../src-main/marketplace/held-keys';
import type { VastApi } from '../../src-main/marketplace/vast-client';
import { parseLabel } from '../../src-main/marketplace/labels';
import type { EmitInput, JobFailure } from '../../src-main/engine/types';
import { CostMeter } from '../../src-main/engine/workflows/cost-meter';
import { costOf, machineUsd, type LeaseCost } from '../../src-main/lease/cost';
import type { LeaseDownload } from '../../src-main/lease/lease-record';
import { Leases } from '../../src-main/lease/leases';
import { Ledger } from '../../src-main/lease/ledger';
import { MemoryLeaseBook } from '../../src-main/lease/lease-book';

/** The pure parts of money safety: classification, labels, cost arithmetic and the spend-limit trigger. */

function job(over: Partial<Record<string, unknown>>): JobRecord {
  return { job_id: 'j1', tenant_id: 'default', kind: 'benchmark', status: 'running', request: { marketplace_stop_instance: true }, error_code: null, ...over } as unknown as JobRecord;
}

describe('classifyInstance', () => {
  it('active while the job is queued or running; kept when left up on purpose; orphaned otherwise', () => {
    expect(classifyInstance(job({ status: 'queued' }))).toBe('active');
    expect(classifyInstance(job({ status: 'running' }))).toBe('active');
    expect(classifyInstance(job({ kind: 'llm-instance', status: 'succeeded', request: { marketplace: true } }))).toBe('kept');
    // One that ran on an existing backend rented nothing: a machine with its label is an orphan.
    expect(classifyInstance(job({ kind: 'llm-instance', status: 'succeeded', request: { marketplace: false } }))).toBe('orphaned');
    expect(classifyInstance(job({ kind: 'llm-instance', status: 'failed' }))).toBe('orphaned');
    expect(classifyInstance(job({ status: 'succeeded', request: { marketplace_stop_instance: false } }))).toBe('kept');
    expect(classifyInstance(job({ status: 'failed', request: { marketplace_stop_instance: false } }))).toBe('kept');
    expect(classifyInstance(job({ status: 'failed', error_code: 'budget_exceeded', request: { marketplace_stop_instance: false } }))).toBe('orphaned');
    expect(classifyInstance(job({ status: 'succeeded' }))).toBe('orphaned');
    expect(classifyInstance(job({ status: 'cancelled' }))).toBe('orphaned');
    expect(classifyInstance(undefined)).toBe('orphaned');
  });

  it('reads a benchdesk: label: install id and job id, or the older form with the job id alone', () => {
    expect(parseLabel('benchdesk:a1b2c3d4e5f6:abc-123')).toEqual({ installId: 'a1b2c3d4e5f6', jobId: 'abc-123' });
    expect(parseLabel('benchdesk:abc-123')).toEqual({ installId: null, jobId: 'abc-123' });
    expect(parseLabel('benchdesk:')).toBeNull();
    expect(parseLabel('benchdesk:a1b2c3d4e5f6:')).toBeNull();
    expect(parseLabel('benchdesk:NOT_AN_ID:abc')).toBeNull();
    expect(parseLabel('training-run-7')).toBeNull();
    expect(parseLabel('xbenchdesk:abc')).toBeNull();
    expect(parseLabel(null)).toBeNull();
    expect(parseLabel(`benchdesk:${'a'.repeat(129)}`)).toBeNull();
  });

  it('only this install\'s machines (or older labels naming one of its jobs) can be orphans; the rest are foreign', () => {
    const ours = 'a1b2c3d4e5f6';
    const ended = job({ status: 'failed' });
    expect(classifyMachine({ installId: ours, jobId: 'j1' }, ended, ours)).toBe('orphaned');
    expect(classifyMachine({ installId: ours, jobId: 'gone' }, undefined, ours)).toBe('orphaned');
    expect(classifyMachine({ installId: 'ffffffffffff', jobId: 'j9' }, undefined, ours)).toBe('foreign');
    // A job id this data dir also knows does not make another install's machine ours.
    expect(classifyMachine({ installId: 'ffffffffffff', jobId: 'j1' }, ended, ours)).toBe('foreign');
    expect(classifyMachine({ installId: null, jobId: 'j1' }, ended, ours)).toBe('orphaned');
    expect(classifyMachine({ installId: null, jobId: 'j1' }, job({ status: 'running' }), ours)).toBe('active');
    expect(classifyMachine({ installId: null, jobId: 'unknown' }, undefined, ours)).toBe('foreign');
  });
});

/** A lease's cost on a test clock: $3.6/h from `rentedAt`, plus its downloads (the ledger's formula). */
function clockLease(clock: { t: number }, dph = 3.6): { cost(): LeaseCost; downloads: LeaseDownload[] } {
  const rentedAtMs = clock.t;
  const downloads: LeaseDownload[] = [];
  return { downloads, cost: () => costOf({ dphTotal: dph, rentedAtMs, releasedAtMs: null, downloads }, clock.t) };
}

describe('CostMeter', () => {
  it('costs dph × hours', () => {
    expect(machineUsd(0.36, 0, 3_600_000)).toBe(0.36);
    expect(machineUsd(0.36, 0, 10_000)).toBe(0.001);
    expect(machineUsd(0.36, 10_000, 0)).toBe(0);
  });

  it('reports growing cost, and stops the job once when the limit is reached', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const events: EmitInput[] = [];
    const costs: number[] = [];
    const stops: JobFailure[] = [];
    const meter = new CostMeter(
      {
        emit: async (e) => void events.push(e),
        setCost: async (c) => void costs.push(c.cost_usd),
        stop: (f) => void stops.push(f),
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
      clockLease(clock),
      { instanceId: 7, maxCostUsd: 0.01 },
    );
    await meter.tick('rented');
    clock.t += 5_000; // $0.005
    await meter.tick('phase:analysis:started');
    expect(stops).toEqual([]);
    clock.t += 5_000; // $0.01: the limit
    await meter.tick('interval');
    clock.t += 5_000;
    await meter.tick('interval');
    expect(costs).toEqual([0, 0.005, 0.01, 0.015]);
    expect(events.map((e) => [e.event, e.status, e.labels?.cost_usd, e.labels?.dph_total, e.labels?.reason])).toEqual([
      ['cost.update', 'info', 0, 3.6, 'rented'],
      ['cost.update', 'info', 0.005, 3.6, 'phase:analysis:started'],
      ['cost.update', 'info', 0.01, 3.6, 'interval'],
      ['cost.update', 'info', 0.015, 3.6, 'interval'],
    ]);
    expect(stops).toHaveLength(1);
    expect(stops[0]?.code).toBe('budget_exceeded');
    expect(stops[0]?.message).toBe('spend limit reached: instance 7 cost $0.010000 (10 s at $3.6/h) against a limit of $0.01; the job was stopped and its machine released');
    expect(meter.exceeded).toBe(stops[0]);
    meter.stop();
    await meter.tick('interval');
    expect(events).toHaveLength(4);
  });
  it('once the work is done, reaching the limit releases the machine but does not stop the job', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const events: EmitInput[] = [];
    const stops: JobFailure[] = [];
    const meter = new CostMeter(
      {
        emit: async (e) => void events.push(e),
        setCost: async () => undefined,
        stop: (f) => void stops.push(f),
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
      clockLease(clock),
      { instanceId: 7, maxCostUsd: 0.01 },
    );
    meter.workDone();
    clock.t += 20_000; // $0.02
    await meter.tick('phase:analysis:ok');
    await meter.tick('interval');
    expect(stops).toEqual([]);
    expect(meter.exceeded?.code).toBe('budget_exceeded');
    // The limit is checked before the cost is written: the limit's event comes first.
    expect(events.map((e) => e.event)).toEqual(['cost.limit_reached', 'cost.update', 'cost.update']);
    expect(events[0]?.message).toBe('spend limit reached after the work finished: instance 7 cost $0.020000 (20 s at $3.6/h) against a limit of $0.01; the result is kept and the machine released');
  });
});

describe('background work is supervised: a failure is logged, never thrown into the process', () => {
  it('the cost meter: a check whose stop throws is logged by the timer, and the download joins the running cost', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const logged: string[] = [];
    const events: EmitInput[] = [];
    const lease = clockLease(clock);
    const meter = new CostMeter(
      {
        emit: async (e) => void events.push(e),
        setCost: async () => undefined,
        stop: () => {
          throw new Error('stop failed');
        },
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
      lease,
      { instanceId: 7, maxCostUsd: 0.01, intervalMs: 10, logError: (m, f) => void logged.push(`${m}: ${String(f.error)}`) },
    );
    lease.downloads.push({ model: 'm', gb: 0.1, usd: 0.004, source: 'pull' });
    clock.t += 6_000; // $0.006 of machine time + $0.004 of download: the limit
    meter.start();
    const deadline = Date.now() + 2_000;
    while (logged.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    meter.stop();
    expect(logged[0]).toBe('the spend check failed: stop failed');
    expect(events[0]?.labels).toMatchObject({ cost_usd: 0.01, download_usd: 0.004 });
  });

  it('the orphan sweep: a sweep that fails (here: settings.json cannot be read) is logged and resolves, and the next one runs', async () => {
    const errors: string[] = [];
    let calls = 0;
    const client = { listInstances: async () => [] } as unknown as VastApi;
    const access = { current: () => ({ key: 'k', client }), clientFor: () => client };
    const heldKeys = new HeldKeys(path.join(tmpdir(), `benchdesk-nothing-${process.pid}`));
    const log = { info: () => undefined, warn: () => undefined, error: (m: string, f?: Record<string, unknown>) => void errors.push(`${m}: ${String(f?.error)}`) };
    const leases = new Leases({ ledger: new Ledger(new MemoryLeaseBook()), access, heldKeys, installId: 'a1b2c3d4e5f6', dataDir: tmpdir(), log });
    const service = createInstanceService({
      access,
      heldKeys,
      installId: 'a1b2c3d4e5f6',
      leases,
      getJob: async () => undefined,
      emit: async () => undefined,
      releaseOrphansAutomatically: () => {
        calls++;
        throw new Error('settings file settings.json is invalid');
      },
      log,
    });
    await expect(service.sweep()).resolves.toEqual({ orphaned: [], released: [], failed: [] });
    await expect(service.sweep()).resolves.toEqual({ orphaned: [], released: [], failed: [] });
    expect(calls).toBe(2);
    expect(errors).toEqual(['orphan sweep failed: settings file settings.json is invalid', 'orphan sweep failed: settings file settings.json is invalid']);
  });
});
