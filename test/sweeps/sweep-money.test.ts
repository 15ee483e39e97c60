import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SweepRecordSchema, type CatalogEntry, type SweepRecord } from '../../shared';
import { costOf } from '../../src-main/lease/cost';
import type { LeaseDownload } from '../../src-main/lease/lease-record';
import type { MarketplaceOffer } from '../../src-main/marketplace/vast-wire';
import type { SweepMachines } from '../../src-main/sweeps/ports';
import { SweepEngine } from '../../src-main/sweeps/sweep-engine';
import { SweepStore } from '../../src-main/sweeps/sweep-store';
import { InsufficientStorageError } from '../../src-main/store/types';
import { heldRunner } from './helpers';

/**
 * A sweep's money under the faults the red team found: downloads that cross the limit, a GPU that
 * cannot rent, a release that is not confirmed, a disk that refuses the record. Machines in the
 * test, costed with the ledger's formula on a test clock.
 */

const CATALOG: Record<string, CatalogEntry> = {
  'small:1b': { name: 'small:1b', vram_mb: 4000, required_disk_gb: 40, download_gb: 2 },
  'mid:8b': { name: 'mid:8b', vram_mb: 8000, required_disk_gb: 42, download_gb: 5 },
};
const offer = (id: number, gpu: string, dph: number) => ({ id, gpu_name: gpu, gpu_ram: 24_576, num_gpus: 1, dph_total: dph, reliability2: 0.999, direct_port_count: 4, disk_space: 200, rentable: true }) as MarketplaceOffer;
const OFFERS = [offer(1, 'RTX 3090', 0.2), offer(2, 'A100', 1.2)];
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

type Options = { downloadUsdPerGb?: number; unrentable?: string[]; releaseConfirms?: boolean };

function clockMachines(clock: { t: number }, o: Options = {}) {
  const held = new Map<string, { dph: number; from: number; to: number | null; downloads: LeaseDownload[] }>();
  const released: string[] = [];
  const cost = (id: string): number | null => {
    const m = held.get(id);
    return m ? costOf({ dphTotal: m.dph, rentedAtMs: m.from, releasedAtMs: m.to, downloads: m.downloads }, clock.t).cost_usd : null;
  };
  let next = 500;
  const machines: SweepMachines = {
    ready: () => true,
    catalogEntry: (m) => CATALOG[m],
    offers: async (gpu) => OFFERS.filter((x) => x.gpu_name === gpu),
    async rent(spec, hooks) {
      if (o.unrentable?.includes(spec.gpu)) throw new Error(`Vast.ai refused every fitting offer we tried (1); the last answer: insufficient credit`);
      const fit = OFFERS.find((x) => x.gpu_name === spec.gpu) as MarketplaceOffer;
      const instanceId = next++;
      held.set(spec.machineId, { dph: fit.dph_total, from: clock.t, to: null, downloads: [] });
      const rentedAt = new Date(clock.t).toISOString();
      await hooks.onRented({ instanceId, dphTotal: fit.dph_total, rentedAt });
      return { machineId: spec.machineId, instanceId, dphTotal: fit.dph_total, rentedAt, offerId: fit.id, numGpus: 1, gpuRamMb: fit.gpu_ram, backendUrl: `http://machine-${instanceId}:11434` };
    },
    async prepare(m, model) {
      const gb = CATALOG[model]?.download_gb ?? 0;
      const usd = o.downloadUsdPerGb === undefined ? null : gb * o.downloadUsdPerGb;
      held.get(m.machineId)?.downloads.push({ model, gb, usd, source: 'pull' });
      return { model, downloadGb: gb, downloadUsd: usd };
    },
    async release(machineId) {
      released.push(machineId);
      const m = held.get(machineId);
      const confirmed = o.releaseConfirms ?? true;
      if (m && confirmed) m.to = clock.t;
      return { released: confirmed, verified: confirmed, message: confirmed ? 'destroyed and confirmed gone' : 'Could not destroy instance: HTTP 503 (benchdesk keeps trying)', costUsd: cost(machineId) ?? 0 };
    },
    cost,
  };
  return { machines, released };
}

const dirs: string[] = [];
const engines: SweepEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.shutdown();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup(o: Options & { hold?: boolean } = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bd-sweep-money-'));
  dirs.push(dir);
  const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
  const m = clockMachines(clock, o);
  const runner = heldRunner(o.hold ? { hold: true } : {});
  const store = new SweepStore(dir, log);
  const engine = new SweepEngine({ store, runner: runner.runner, machines: m.machines, log, publish: () => undefined, now: () => clock.t, costIntervalMs: 60_000 });
  engines.push(engine);
  return { clock, engine, store, runner, ...m };
}

const base = { name: 'money', template_hash: 'abc123', suite_id: 'starter' };

async function finished(engine: SweepEngine, id: string): Promise<SweepRecord> {
  await engine.settled(id);
  return SweepRecordSchema.parse(await engine.get('default', id));
}

describe("a sweep's money", () => {
  it('counts the models its machines download: downloads that cross the limit stop it with budget_exceeded and everything released', async () => {
    // 5 GB at $0.20/GB is $1 of download: past a $0.5 limit before any machine time to speak of.
    const t = await setup({ downloadUsdPerGb: 0.2 });
    const created = await t.engine.create('default', { ...base, models: ['mid:8b', 'small:1b'], gpus: ['RTX 3090'], max_total_cost_usd: 0.5 });
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.status).toBe('failed');
    expect(sweep.error_code).toBe('budget_exceeded');
    expect(sweep.cells.map((c) => c.status)).toEqual(['budget_exceeded', 'budget_exceeded']);
    expect(t.released).toEqual([sweep.machines[0]?.machine_id]);
    expect(sweep.machines[0]).toMatchObject({ status: 'released', released: true, cost_usd: 1 });
    expect(sweep.spend_usd).toBe(1);
    // No job ran on a machine whose downloads had already used the budget.
    expect(t.runner.jobs).toHaveLength(0);
  });

  it("a cell's cost and $ per correct answer include its model's download", async () => {
    const t = await setup({ downloadUsdPerGb: 0.01 });
    const created = await t.engine.create('default', { ...base, models: ['small:1b'], gpus: ['RTX 3090'], max_total_cost_usd: 10 });
    const sweep = await finished(t.engine, created.sweep_id);
    const cell = sweep.cells[0];
    // 2 GB at $0.01/GB; no time passed on the test clock.
    expect(cell).toMatchObject({ status: 'succeeded', cost_usd: 0.02 });
    expect(cell?.cost_per_correct_usd).toBe(0.02 / (cell?.passed ?? 1));
    expect(sweep.spend_usd).toBe(0.02);
    expect(sweep.outcome).toMatchObject({ clean: true, problems: [] });
  });

  it('cells of a GPU that could not rent are counted: the sweep that succeeded for the rest is not a clean success, and says why', async () => {
    const t = await setup({ unrentable: ['A100'] });
    const created = await t.engine.create('default', { ...base, models: ['small:1b'], gpus: ['RTX 3090', 'A100'], max_total_cost_usd: 10 });
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.status).toBe('succeeded');
    expect(sweep.cells.find((c) => c.gpu === 'A100')).toMatchObject({ status: 'failed', unrented: true });
    expect(sweep.outcome).toMatchObject({ cells_succeeded: 1, cells_failed: 1, cells_unrented: 1, clean: false });
    expect(sweep.outcome?.problems).toEqual(['1 cell could not run: no machine could be rented for its GPU']);
    expect(sweep.message).toMatch(/^1 of 2 cells scored for \$[\d.]+; 1 cell could not run/);
  });

  it('a machine whose release is not confirmed keeps counting in the spend and makes the run not clean', async () => {
    const t = await setup({ releaseConfirms: false });
    const created = await t.engine.create('default', { ...base, models: ['small:1b'], gpus: ['RTX 3090'], max_total_cost_usd: 10 });
    const done = await finished(t.engine, created.sweep_id);
    expect(done.machines[0]).toMatchObject({ status: 'failed', released: false, release_error: expect.stringMatching(/503/) });
    expect(done.outcome).toMatchObject({ machines_unreleased: 1, clean: false });
    // An hour later it still bills, and the sweep's spend (read live) says so.
    t.clock.t += 3_600_000;
    const later = await t.engine.get('default', created.sweep_id);
    expect(later.spend_usd).toBeCloseTo(0.2, 6);
  });

  it('a data dir that refuses the record stops the sweep and releases its machines (the check is never skipped)', async () => {
    const t = await setup({ hold: true });
    const created = await t.engine.create('default', { ...base, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090'], max_total_cost_usd: 10 });
    await waitFor(() => t.runner.jobs.length === 1);
    // The disk fills up: every write of the record fails from now on (the store keeps its memory copy, as it does).
    (t.store as unknown as { write: () => Promise<void> }).write = async () => {
      throw new InsufficientStorageError('/data', Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    };
    t.runner.jobs[0]?.finish();
    await t.engine.settled(created.sweep_id);
    expect(t.released).toHaveLength(1);
    // The record in memory has the end the disk would not take.
    const sweep = t.store.peek(created.sweep_id);
    expect(sweep).toMatchObject({ status: 'failed', error_code: 'store_failed' });
    // The cell whose job had finished keeps its result; the next one never ran.
    expect(sweep?.cells.map((c) => c.status)).toEqual(['succeeded', 'failed']);
    expect(sweep?.cells[1]?.reason).toMatch(/could not be written/);
    expect(t.runner.jobs).toHaveLength(1);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}
