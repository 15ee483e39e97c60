import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SweepRecordSchema, type SweepRecord } from '../../shared/sweeps';
import type { CatalogEntry } from '../../shared/models';
import type { MarketplaceOffer } from '../marketplace/vast-wire';
import { ProblemError } from '../app/problem-error';
import { costOf } from '../lease/cost';
import type { LeaseDownload } from '../lease/lease-record';
import type { RentedMachine, SweepJobEnd, SweepJobKind, SweepJobRunner, SweepMachines } from './ports';
import { SweepEngine, type SweepFeedEvent } from './sweep-engine';
import { SweepStore } from './sweep-store';

/**
 * The sweep engine with an in-test job runner and in-test machines: the matrix, one machine per
 * GPU, skipped models, the spend limit, cancel, and resume after a crash, each asserted on the
 * stored record and on what was rented and released.
 */

const CATALOG: Record<string, CatalogEntry> = {
  'small:1b': { name: 'small:1b', vram_mb: 4000, required_disk_gb: 40, download_gb: 2 },
  'mid:8b': { name: 'mid:8b', vram_mb: 8000, required_disk_gb: 42, download_gb: 5 },
  'huge:70b': { name: 'huge:70b', vram_mb: 50_000, required_disk_gb: 90, download_gb: 43 },
};

function offer(id: number, gpu: string, ramMb: number, dph: number): MarketplaceOffer {
  return { id, gpu_name: gpu, gpu_ram: ramMb, num_gpus: 1, dph_total: dph, reliability2: 0.999, direct_port_count: 4, disk_space: 200, rentable: true } as MarketplaceOffer;
}
const OFFERS = [offer(1, 'RTX 3090', 24_576, 0.2), offer(2, 'RTX 3090', 24_576, 0.3), offer(3, 'A100', 81_920, 1.2)];

type Clock = { t: number };

/**
 * In-test machines: offers of two GPUs, renting and releasing recorded, each model's download
 * priced at `downloadUsdPerGb` (the catalog's size), costs with the ledger's formula on the test clock.
 */
function fakeMachines(clock: Clock, options: { downloadUsdPerGb?: number } = {}) {
  const rents: { gpu: string; sizing: CatalogEntry; instanceId: number; machineId: string }[] = [];
  const releases: { machineId: string; instanceId: number | undefined }[] = [];
  const pulls: string[] = [];
  const held = new Map<string, { dph: number; rentedAtMs: number; releasedAtMs: number | null; downloads: LeaseDownload[] }>();
  let next = 100;
  const costNow = (machineId: string): number | null => {
    const m = held.get(machineId);
    return m ? costOf({ dphTotal: m.dph, rentedAtMs: m.rentedAtMs, releasedAtMs: m.releasedAtMs, downloads: m.downloads }, clock.t).cost_usd : null;
  };
  const machines: SweepMachines = {
    ready: () => true,
    catalogEntry: (m) => CATALOG[m],
    offers: async (gpu) => OFFERS.filter((o) => o.gpu_name === gpu),
    async rent(spec, hooks) {
      const fit = OFFERS.filter((o) => o.gpu_name === spec.gpu && o.gpu_ram >= spec.sizing.vram_mb).sort((a, b) => a.dph_total - b.dph_total)[0];
      if (!fit) throw new Error('no offer');
      const instanceId = next++;
      rents.push({ gpu: spec.gpu, sizing: spec.sizing, instanceId, machineId: spec.machineId });
      const rentedAt = new Date(clock.t).toISOString();
      held.set(spec.machineId, { dph: fit.dph_total, rentedAtMs: clock.t, releasedAtMs: null, downloads: [] });
      await hooks.onRented({ instanceId, dphTotal: fit.dph_total, rentedAt });
      return { machineId: spec.machineId, instanceId, dphTotal: fit.dph_total, rentedAt, offerId: fit.id, numGpus: 1, gpuRamMb: fit.gpu_ram, backendUrl: `http://machine-${instanceId}:11434` };
    },
    async prepare(m, model) {
      pulls.push(model);
      const gb = CATALOG[model]?.download_gb ?? 0;
      const usd = options.downloadUsdPerGb === undefined ? null : Math.round(gb * options.downloadUsdPerGb * 1e6) / 1e6;
      held.get(m.machineId)?.downloads.push({ model, gb, usd, source: 'pull' });
      return { model, downloadGb: gb, downloadUsd: usd };
    },
    async release(machineId, instanceId) {
      releases.push({ machineId, instanceId });
      const m = held.get(machineId);
      if (m && m.releasedAtMs === null) m.releasedAtMs = clock.t;
      return { released: true, verified: true, message: `instance ${instanceId} destroyed`, costUsd: costNow(machineId) ?? 0 };
    },
    cost: costNow,
  };
  return { machines, rents, releases, pulls };
}

type Submitted = { id: string; kind: SweepJobKind; request: Record<string, unknown>; tag: string; resolve?: (end: SweepJobEnd) => void; cancelled?: boolean };

/** Jobs that end when the test says (`auto`: at once, with a result from `results`). */
function fakeRunner(clock: Clock, options: { auto?: boolean; minutesPerJob?: number; results?: (kind: SweepJobKind, model: string) => unknown } = {}) {
  const jobs: Submitted[] = [];
  const results = options.results ?? ((kind, model) => (kind === 'suite' ? suiteResult(model === 'mid:8b' ? 9 : 6, 10) : servingResult(model === 'mid:8b' ? 40 : 80)));
  const runner: SweepJobRunner = {
    supports: () => true,
    async submit(_tenant, kind, request, tag) {
      const job: Submitted = { id: `job-${jobs.length + 1}`, kind, request, tag };
      jobs.push(job);
      return job.id;
    },
    wait(jobId, signal) {
      const job = jobs.find((j) => j.id === jobId) as Submitted;
      return new Promise((resolve, reject) => {
        job.resolve = resolve;
        if (signal.aborted) return reject(new Error('aborted'));
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        if (options.auto !== false) {
          clock.t += (options.minutesPerJob ?? 10) * 60_000;
          resolve({ status: 'succeeded', result: results(kind(job), String(job.request.model)), error: null, error_code: null });
        }
      });
    },
    async findTagged(_tenant, _kind, tag) {
      return jobs.find((j) => j.tag === tag)?.id;
    },
    async cancel(_tenant, jobId) {
      const job = jobs.find((j) => j.id === jobId);
      if (job) job.cancelled = true;
    },
  };
  return { runner, jobs };
}
const kind = (job: Submitted): SweepJobKind => job.kind;

function suiteResult(passed: number, total: number): unknown {
  return {
    summary: { accuracy: passed / total, passed, total, cost_per_correct_usd: null },
    // The suite job's own time (the runner's 10 simulated minutes): what $ per correct answer is counted from.
    phases: [{ name: 'analysis', status: 'ok', started_at: '2026-01-01T00:00:00.000Z', duration_ms: 600_000 }],
    scenarios: Array.from({ length: total }, (_, i) => ({ scenario_id: `s${i}`, passed: i < passed, tags: [i % 2 === 0 ? 'pods' : 'network'] })),
  };
}
function servingResult(tps: number): unknown {
  return { levels: [{ concurrency: 1, output_tokens_per_s: tps / 2, ttft_ms: { p50: 50 } }, { concurrency: 4, output_tokens_per_s: tps, ttft_ms: { p50: 120 } }] };
}

const dirs: string[] = [];
const engines: SweepEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.shutdown();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const log = { info: () => undefined, warn: () => undefined, error: (m: string, f?: unknown) => console.error(m, f) };

async function setup(opts: { runner?: ReturnType<typeof fakeRunner>; dir?: string; clock?: Clock; costIntervalMs?: number; downloadUsdPerGb?: number } = {}) {
  const dir = opts.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'bd-sweep-')));
  if (!opts.dir) dirs.push(dir);
  const clock = opts.clock ?? { t: Date.parse('2026-01-01T00:00:00Z') };
  const m = fakeMachines(clock, opts.downloadUsdPerGb !== undefined ? { downloadUsdPerGb: opts.downloadUsdPerGb } : {});
  const r = opts.runner ?? fakeRunner(clock);
  const events: SweepFeedEvent[] = [];
  const store = new SweepStore(dir, log);
  const engine = new SweepEngine({
    store,
    runner: r.runner,
    machines: m.machines,
    log,
    publish: (_t, _s, e) => events.push(e),
    now: () => clock.t,
    costIntervalMs: opts.costIntervalMs ?? 60_000,
  });
  engines.push(engine);
  return { dir, clock, engine, store, events, ...m, ...r };
}

const base = { name: 'pick a model', template_hash: 'abc123', max_total_cost_usd: 10 };

async function finished(engine: SweepEngine, id: string): Promise<SweepRecord> {
  await engine.settled(id);
  return SweepRecordSchema.parse(await engine.get('default', id));
}

describe('sweep engine', () => {
  it('runs 2 models × 2 GPUs on exactly 2 machines, scores and costs every cell, ranks them', async () => {
    const t = await setup();
    const created = await t.engine.create('default', { ...base, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090', 'A100'], suite_id: 'starter' });
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.status).toBe('succeeded');
    expect(t.rents.map((r) => r.gpu).sort()).toEqual(['A100', 'RTX 3090']);
    // Sized for the largest model that fits, on the cheapest offer of that GPU.
    expect(t.rents.find((r) => r.gpu === 'RTX 3090')?.sizing.vram_mb).toBe(8000);
    expect(t.releases.map((r) => r.instanceId).sort()).toEqual(t.rents.map((r) => r.instanceId).sort());
    expect(sweep.cells.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    // Each job ran against its machine's Ollama, never renting itself.
    for (const job of t.jobs) {
      expect(job.request.marketplace).toBe(false);
      expect(String(job.request.backend_url)).toMatch(/^http:\/\/machine-\d+:11434$/);
      expect(job.request.suite_id).toBe('starter');
    }
    // 10 simulated minutes per job at the machine's $/h.
    const rtxSmall = sweep.cells.find((c) => c.model === 'small:1b' && c.gpu === 'RTX 3090');
    expect(rtxSmall?.cost_usd).toBeCloseTo(0.2 / 6, 6);
    expect(rtxSmall?.accuracy).toBeCloseTo(0.6);
    expect(rtxSmall?.cost_per_correct_usd).toBeCloseTo(0.2 / 6 / 6, 6);
    expect(rtxSmall?.tags?.pods).toEqual({ passed: 3, total: 5, accuracy: 0.6 });
    // 9/10 and 6/10 are a statistical tie on ten scenarios (their 95% intervals overlap): one tier,
    // ordered by $ per correct answer, so the cheap GPU's small model comes before the A100's mid one.
    expect(sweep.ranking.map((i) => `${sweep.cells[i]?.model}@${sweep.cells[i]?.gpu}`)).toEqual(['mid:8b@RTX 3090', 'small:1b@RTX 3090', 'mid:8b@A100', 'small:1b@A100']);
    expect(sweep.cells.map((c) => c.rank_tier)).toEqual([1, 1, 1, 1]);
    expect(sweep.spend_usd).toBeCloseTo(sweep.machines.reduce((s, m) => s + m.cost_usd, 0), 6);
    expect(sweep.machines.every((m) => m.status === 'released' && m.released === true)).toBe(true);
    const report = await t.engine.report('default', created.sweep_id, 'md');
    expect(report).toContain('| 1 | mid:8b | RTX 3090 | 90.0 % |');
  });

  it('skips a model too large for a GPU with its reason, and rents nothing for a GPU no model fits', async () => {
    const t = await setup();
    const created = await t.engine.create('default', { ...base, models: ['huge:70b'], gpus: ['RTX 3090', 'A100'], suite_id: 'starter' });
    const sweep = await finished(t.engine, created.sweep_id);
    const rtx = sweep.cells.find((c) => c.gpu === 'RTX 3090');
    expect(rtx?.status).toBe('skipped');
    expect(rtx?.reason).toMatch(/needs 49 GB .*largest RTX 3090 offer has 24 GB/);
    expect(t.rents.map((r) => r.gpu)).toEqual(['A100']);
    expect(sweep.machines.find((m) => m.gpu === 'RTX 3090')?.status).toBe('skipped');
    expect(sweep.cells.find((c) => c.gpu === 'A100')?.status).toBe('succeeded');
  });

  it('stops at the spend limit: every machine released, the unfinished cells budget_exceeded', async () => {
    // $0.20/h for 10 minutes per job: the first cell costs $0.0333, past the $0.03 limit.
    const t = await setup();
    const created = await t.engine.create('default', { ...base, max_total_cost_usd: 0.03, max_dph: 5, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090'], suite_id: 'starter' });
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.status).toBe('failed');
    expect(sweep.error_code).toBe('budget_exceeded');
    expect(sweep.cells.map((c) => c.status)).toEqual(['succeeded', 'budget_exceeded']);
    expect(t.releases).toHaveLength(1);
    expect(sweep.spend_usd).toBeGreaterThanOrEqual(0.03);
    expect(t.events.some((e) => e.event === 'cost.limit_reached')).toBe(true);
  });

  it('reaches the spend limit on the cost tick while a job runs, cancels the job and releases the machine', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const runner = fakeRunner(clock, { auto: false });
    const t = await setup({ clock, runner, costIntervalMs: 10 });
    const created = await t.engine.create('default', { ...base, max_total_cost_usd: 0.05, max_dph: 5, models: ['small:1b'], gpus: ['RTX 3090'], suite_id: 'starter' });
    await waitFor(() => t.jobs.length === 1);
    clock.t += 3_600_000; // an hour at $0.20/h
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.cells[0]?.status).toBe('budget_exceeded');
    expect(t.jobs[0]?.cancelled).toBe(true);
    expect(t.releases).toHaveLength(1);
    expect(t.events.some((e) => e.event === 'cost.update')).toBe(true);
  });

  it('cancel releases every machine and ends the unfinished cells cancelled', async () => {
    const clock = { t: 0 };
    const runner = fakeRunner(clock, { auto: false });
    const t = await setup({ clock, runner });
    const created = await t.engine.create('default', { ...base, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090', 'A100'], suite_id: 'starter', machines_at_once: 2 });
    await waitFor(() => t.jobs.length === 2);
    expect(await t.engine.cancel('default', created.sweep_id)).toEqual({ sweep_id: created.sweep_id, status: 'running' });
    const sweep = await finished(t.engine, created.sweep_id);
    expect(sweep.status).toBe('cancelled');
    expect(sweep.cells.every((c) => c.status === 'cancelled')).toBe(true);
    expect(t.releases).toHaveLength(2);
    expect(t.jobs.every((j) => j.cancelled)).toBe(true);
    await expect(t.engine.cancel('default', created.sweep_id)).rejects.toMatchObject({ status: 409 });
  });

  it('after a crash, releases the interrupted machine and resumes the unfinished cells', async () => {
    const clock = { t: 0 };
    const first = await setup({ clock, runner: fakeRunner(clock, { auto: false }) });
    const created = await first.engine.create('default', { ...base, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090'], suite_id: 'starter' });
    await waitFor(() => first.jobs[0]?.resolve !== undefined);
    // The first cell finishes; the process dies during the second one's job.
    first.jobs[0]?.resolve?.({ status: 'succeeded', result: suiteResult(5, 10), error: null, error_code: null });
    await waitFor(() => first.jobs[1]?.resolve !== undefined);
    const onDisk = SweepRecordSchema.parse(JSON.parse(await import('node:fs/promises').then((f) => f.readFile(path.join(first.dir, 'sweeps', `${created.sweep_id}.json`), 'utf8'))));
    expect(onDisk.machines[0]?.status).toBe('running');
    const held = onDisk.machines[0]?.instance_id;

    // A new process on the same data dir (the old one is simply abandoned, as after SIGKILL).
    const second = await setup({ dir: first.dir, clock });
    const recovered = await second.engine.recover();
    expect(recovered).toEqual({ resumed: 1, released: 1 });
    expect(second.releases[0]?.instanceId).toBe(held);
    const sweep = await finished(second.engine, created.sweep_id);
    expect(sweep.status).toBe('succeeded');
    expect(sweep.cells.map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
    // Only the unfinished cell ran again, on a new machine with a new label.
    expect(second.rents).toHaveLength(1);
    expect(second.rents[0]?.machineId).toMatch(/-g0-a1$/);
    expect(second.jobs.map((j) => j.request.model)).toEqual(['mid:8b']);
    expect(sweep.cells[1]?.job_ids).toHaveLength(2);
    expect(sweep.earlier_machines).toHaveLength(1);
    // The resumed cell's job is keyed by its new machine: it never collides with the old job's key.
    expect(second.jobs[0]?.tag).toBe(`${created.sweep_id}-g0-a1:1:suite`);
  });

  it('recovery without resuming (a CLI command in its own process) releases the machine and leaves the sweep for the next start', async () => {
    const clock = { t: 0 };
    const first = await setup({ clock, runner: fakeRunner(clock, { auto: false }) });
    const created = await first.engine.create('default', { ...base, models: ['small:1b'], gpus: ['RTX 3090'], suite_id: 'starter' });
    await waitFor(() => first.jobs[0]?.resolve !== undefined);
    await first.store.flush();
    const cli = await setup({ dir: first.dir, clock });
    expect(await cli.engine.recover({ resume: false })).toEqual({ resumed: 0, released: 1 });
    expect(cli.rents).toHaveLength(0);
    const left = await cli.engine.get('default', created.sweep_id);
    expect(left.status).toBe('running');
    expect(left.cells[0]?.status).toBe('pending');
    // The next server start resumes it.
    const server = await setup({ dir: first.dir, clock });
    expect(await server.engine.recover()).toEqual({ resumed: 1, released: 0 });
    expect((await finished(server.engine, created.sweep_id)).status).toBe('succeeded');
  });

  it('after a crash between a job submission and its record, the job is found by its key, recorded and cancelled', async () => {
    const clock = { t: 0 };
    const first = await setup({ clock, runner: fakeRunner(clock, { auto: false }) });
    const created = await first.engine.create('default', { ...base, models: ['small:1b'], gpus: ['RTX 3090'], suite_id: 'starter' });
    await waitFor(() => first.jobs[0]?.resolve !== undefined);
    const fsp = await import('node:fs/promises');
    const file = path.join(first.dir, 'sweeps', `${created.sweep_id}.json`);
    await first.store.flush();
    // As if the process died before the job id reached the record.
    const onDisk = JSON.parse(await fsp.readFile(file, 'utf8')) as SweepRecord;
    (onDisk.cells[0] as SweepRecord['cells'][number]).job_ids = [];
    await fsp.writeFile(file, JSON.stringify(onDisk));

    const runner = fakeRunner(clock);
    runner.jobs.push({ ...(first.jobs[0] as (typeof runner.jobs)[number]), cancelled: false });
    const second = await setup({ dir: first.dir, clock, runner });
    await second.engine.recover();
    const sweep = await finished(second.engine, created.sweep_id);
    expect(sweep.status).toBe('succeeded');
    expect(runner.jobs[0]?.cancelled).toBe(true);
    expect(sweep.cells[0]?.job_ids).toEqual([first.jobs[0]?.id, runner.jobs[1]?.id]);
  });

  it('a serving-only sweep reports $ per million output tokens and ranks by it', async () => {
    const t = await setup();
    const created = await t.engine.create('default', { ...base, models: ['small:1b', 'mid:8b'], gpus: ['RTX 3090'], serving: { concurrency: [1, 4], requests_per_level: 8 } });
    const sweep = await finished(t.engine, created.sweep_id);
    const small = sweep.cells.find((c) => c.model === 'small:1b');
    // $0.20/h ÷ (80 tok/s × 3600) × 10⁶
    expect(small?.usd_per_million_output_tokens).toBeCloseTo((0.2 / (80 * 3600)) * 1e6, 4);
    expect(small?.ttft_p50_ms).toBe(120);
    expect(small?.accuracy).toBeUndefined();
    expect(sweep.ranking.map((i) => sweep.cells[i]?.model)).toEqual(['small:1b', 'mid:8b']);
    expect(t.jobs[0]?.request).toMatchObject({ concurrency: [1, 4], requests_per_level: 8, prompt_tokens: 256, output_tokens: 128 });
  });

  it('refuses bad requests with 422 naming the field, and keeps tenants apart', async () => {
    const t = await setup();
    const expect422 = async (body: unknown, field: string) => {
      const err = await t.engine.create('default', body).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProblemError);
      expect((err as ProblemError).status).toBe(422);
      expect((err as ProblemError).errors?.map((e) => e.path)).toContain(field);
    };
    await expect422({ ...base, models: ['small:1b'], gpus: ['A100'] }, 'suite_id');
    await expect422({ name: 'x', template_hash: 'a', models: ['small:1b'], gpus: ['A100'], suite_id: 's' }, 'max_total_cost_usd');
    await expect422({ ...base, models: ['nope:1b'], gpus: ['A100'], suite_id: 's' }, 'models');
    await expect422({ ...base, models: ['small:1b'], gpus: ['A100'], suite_id: 's', surprise: 1 }, '');
    const created = await t.engine.create('default', { ...base, models: ['small:1b'], gpus: ['A100'], suite_id: 's' });
    await expect(t.engine.get('other', created.sweep_id)).rejects.toMatchObject({ status: 404 });
    expect(await t.engine.list('other')).toEqual([]);
    await t.engine.settled(created.sweep_id);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}

export type { RentedMachine };

describe('sweep store', () => {
  it('a sweep file that does not read is set aside in corrupt/, the others load', async () => {
    const t = await setup();
    const created = await t.engine.create('default', { ...base, models: ['small:1b'], gpus: ['A100'], suite_id: 's' });
    await t.engine.settled(created.sweep_id);
    const fsp = await import('node:fs/promises');
    await fsp.writeFile(path.join(t.dir, 'sweeps', 'sw-broken.json'), '{"sweep_id": "sw-broken", "status": ');
    const warnings: string[] = [];
    const store = new SweepStore(t.dir, { info: () => undefined, warn: (m) => warnings.push(m) });
    expect((await store.list()).map((s) => s.sweep_id)).toEqual([created.sweep_id]);
    expect(warnings.join('\n')).toMatch(/sw-broken does not read/);
    expect((await fsp.readdir(path.join(t.dir, 'corrupt'))).some((n) => n.startsWith('sw-broken.json'))).toBe(true);
  });
});
