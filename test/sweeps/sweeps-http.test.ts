import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobEvent, MarketplaceInstanceList } from '../../shared';
import { CSV_COLUMNS } from '../../src-main/sweeps/report-format';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { mustVast, startHarness, waitUntil, type Harness } from '../workflows/harness';
import { getSweep, heldRunner, pollSweep } from './helpers';

/**
 * Sweeps over HTTP against the fake Vast.ai and Ollama: real renting and releasing through the
 * marketplace provisioning, with the suite and serving jobs stood in for by an in-test runner.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function harness(runner: ReturnType<typeof heldRunner>, sweepTuning: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    ollama: { models: DEFAULT_FAKE_MODELS },
    extra: { sweepTuning: { runner: runner.runner, ...sweepTuning } },
  });
  cleanups.push(() => h.close());
  return h;
}

const body = (over: Record<string, unknown> = {}) => ({
  name: 'which 8b model',
  models: ['llama3.1:8b', 'qwen2.5:7b'],
  gpus: ['RTX 3090', 'A100 SXM4'],
  suite_id: 'starter',
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 2,
  max_total_cost_usd: 5,
  ...over,
});

async function create(h: Harness, over: Record<string, unknown> = {}): Promise<string> {
  const res = await h.post('/v1/sweeps', body(over));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe('accepted');
  const id = String(res.body.sweep_id);
  expect(res.headers.location).toBe(`/v1/sweeps/${id}`);
  // Accepted = on disk: the record is in the data dir when the 202 arrives.
  const stored = JSON.parse(await readFile(path.join(h.dir, 'sweeps', `${id}.json`), 'utf8')) as { sweep_id: string };
  expect(stored.sweep_id).toBe(id);
  return id;
}

describe('sweeps over HTTP against the fakes', () => {
  it('2 models × 2 GPUs rent exactly 2 machines, release both, score, cost and rank every cell; the report in md, csv and json', async () => {
    const runner = heldRunner({ hold: true });
    const h = await harness(runner);
    const vast = mustVast(h);
    const feed: JobEvent[] = [];
    h.bd.service.subscribe('default', null, (e) => feed.push(e));
    const id = await create(h);

    // While a cell runs, the machines list shows the sweep's machine: what runs and what it costs.
    await waitUntil(() => runner.jobs.length === 1, 'the first job');
    const listing = (await h.get('/v1/marketplace/instances')).body as unknown as MarketplaceInstanceList;
    const machine = listing.instances.find((i) => i.sweep?.sweep_id === id);
    expect(machine?.classification).toBe('active');
    expect(machine?.sweep?.model).toBe('llama3.1:8b');
    expect(machine?.cost_usd_so_far).not.toBeNull();
    const refused = await h.post(`/v1/marketplace/instances/${machine?.instance_id}/release`, {});
    expect(refused.status).toBe(409);

    for (let n = 1; n <= 4; n++) {
      await waitUntil(() => runner.jobs.length >= n, `job ${n}`);
      runner.jobs[n - 1]?.finish();
    }
    const sweep = await pollSweep(h, id);
    expect(sweep.status).toBe('succeeded');
    expect(vast.callsTo('asks')).toHaveLength(2);
    expect(vast.liveInstances()).toHaveLength(0);
    expect(sweep.machines.map((m) => m.gpu)).toEqual(['RTX 3090', 'A100 SXM4']);
    expect(sweep.machines.every((m) => m.status === 'released' && m.released)).toBe(true);
    // The RTX 3090 machine is the cheapest 3090 offer that fits 8 GB.
    expect(sweep.machines[0]?.offer_id).toBe(20000002);
    for (const cell of sweep.cells) {
      expect(cell.status).toBe('succeeded');
      expect(cell.accuracy).toBeGreaterThan(0);
      expect(cell.cost_usd).toBeGreaterThanOrEqual(0);
      expect(cell.job_ids).toHaveLength(1);
    }
    // Every job was pointed at its machine's Ollama (the fake's port), never renting.
    for (const job of runner.jobs) {
      expect(job.request.marketplace).toBe(false);
      expect(String(job.request.backend_url)).toMatch(/^http:\/\/(vastai:[^@]+@)?127\.0\.0\.1:\d+$/);
    }
    expect(sweep.ranking).toHaveLength(4);
    expect(sweep.cells[sweep.ranking[0] as number]?.model).toBe('llama3.1:8b');
    expect(sweep.spend_usd).toBeGreaterThan(0);

    const md = await h.bd.app.inject({ method: 'GET', url: `/v1/sweeps/${id}/report?format=md` });
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.body).toMatch(/^## Sweep: which 8b model/);
    expect(md.body).toContain('| 1 | llama3.1:8b |');
    const csv = await h.bd.app.inject({ method: 'GET', url: `/v1/sweeps/${id}/report?format=csv` });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(5);
    const json = await h.get(`/v1/sweeps/${id}/report`);
    expect(json.body.ranked_by).toBe('accuracy');
    expect((json.body.tags as unknown[]).length).toBe(2);

    // Sweep events reached the tenant feed, with global seqs.
    await waitUntil(() => feed.some((e) => e.job_id === id && e.event === 'sweep.succeeded'), 'the closing event on the feed');
    const own = feed.filter((e) => e.job_id === id);
    expect(own.map((e) => e.event)).toEqual(expect.arrayContaining(['sweep.queued', 'sweep.running', 'sweep.machine.rented', 'sweep.cell.succeeded', 'sweep.machine.released', 'sweep.succeeded']));
    const seqs = feed.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect((await h.get('/v1/sweeps')).body.sweeps).toHaveLength(1);
  });

  it('a model too large for a GPU is skipped with its reason and nothing is rented for it', async () => {
    const runner = heldRunner();
    const h = await harness(runner);
    const id = await create(h, { models: ['llama3.1:70b'], gpus: ['RTX 3090'] });
    const sweep = await pollSweep(h, id);
    expect(sweep.cells[0]?.status).toBe('skipped');
    expect(sweep.cells[0]?.reason).toMatch(/needs 49 GB of GPU memory; the largest RTX 3090 offer has 48 GB|needs 49 GB/);
    expect(mustVast(h).callsTo('asks')).toHaveLength(0);
    expect(runner.jobs).toHaveLength(0);
  });

  it('the total spend limit stops the sweep with every machine released and the rest budget_exceeded', async () => {
    const runner = heldRunner({ hold: true });
    const clock = { t: Date.now() };
    const h = await harness(runner, { costIntervalMs: 20, now: () => clock.t });
    const id = await create(h, { max_total_cost_usd: 0.5, machines_at_once: 2 });
    await waitUntil(() => runner.jobs.length === 2, 'both machines running a job');
    clock.t += 2 * 3_600_000; // two hours later, at $0.16 + $1.15 per hour
    const sweep = await pollSweep(h, id);
    expect(sweep.status).toBe('failed');
    expect(sweep.error_code).toBe('budget_exceeded');
    expect(sweep.cells.every((c) => c.status === 'budget_exceeded')).toBe(true);
    expect(runner.jobs.every((j) => j.cancelled)).toBe(true);
    expect(mustVast(h).liveInstances()).toHaveLength(0);
    expect(sweep.machines.every((m) => m.released)).toBe(true);
    expect(sweep.spend_usd).toBeGreaterThanOrEqual(0.5);
  });

  it('cancel releases everything and ends the unfinished cells cancelled; a second cancel is 409', async () => {
    const runner = heldRunner({ hold: true });
    const h = await harness(runner);
    const id = await create(h);
    await waitUntil(() => runner.jobs.length === 1, 'a job');
    const res = await h.post(`/v1/sweeps/${id}/cancel`, {});
    expect(res.status).toBe(202);
    const sweep = await pollSweep(h, id);
    expect(sweep.status).toBe('cancelled');
    expect(sweep.cells.every((c) => c.status === 'cancelled')).toBe(true);
    expect(mustVast(h).liveInstances()).toHaveLength(0);
    expect((await h.post(`/v1/sweeps/${id}/cancel`, {})).status).toBe(409);
  });

  it('a shutdown mid-sweep releases the machine and cancels the job; the next start resumes the unfinished cells on a new machine', async () => {
    const first = heldRunner({ hold: true });
    const h = await harness(first);
    const vast = mustVast(h);
    const id = await create(h, { gpus: ['RTX 3090'] });
    await waitUntil(() => first.jobs.length === 1, 'the first job');
    first.jobs[0]?.finish();
    await waitUntil(() => first.jobs.length === 2, 'the second job');
    await h.closeProduct();
    expect(first.jobs[1]?.cancelled).toBe(true);
    expect(vast.liveInstances()).toHaveLength(0);

    const second = heldRunner();
    const again = await startHarness({ start: true, dataDir: h.dir, reuse: { ollama: h.ollama, vast }, extra: { sweepTuning: { runner: second.runner } } });
    cleanups.push(() => again.close());
    const sweep = await pollSweep(again, id);
    expect(sweep.status).toBe('succeeded');
    expect(sweep.cells.map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
    // Only the interrupted cell ran again, on a second machine (2 rents in all, both released).
    expect(second.jobs.map((j) => j.request.model)).toEqual(['qwen2.5:7b']);
    expect(vast.callsTo('asks')).toHaveLength(2);
    expect(vast.liveInstances()).toHaveLength(0);
    expect(sweep.earlier_machines).toHaveLength(1);
    // The first machine's cost stays in the spend.
    expect(sweep.spend_usd).toBeCloseTo([...sweep.earlier_machines, ...sweep.machines].reduce((sum, m) => sum + m.cost_usd, 0), 6);
    expect(sweep.earlier_machines[0]?.released).toBe(true);
  });

  it('bad input is a 422 naming the field; another tenant sees a 404', async () => {
    const h = await harness(heldRunner());
    const noKind = await h.post('/v1/sweeps', body({ suite_id: undefined }));
    expect(noKind.status).toBe(422);
    expect(JSON.stringify(noKind.body.errors)).toContain('suite_id');
    const { max_total_cost_usd: _dropped, ...noLimit } = body();
    const limit = await h.post('/v1/sweeps', noLimit);
    expect(limit.status).toBe(422);
    expect(JSON.stringify(limit.body.errors)).toContain('max_total_cost_usd');
    expect((await h.post('/v1/sweeps', body({ gpus: [] }))).status).toBe(422);
    expect((await h.get('/v1/sweeps/sw-nothere')).status).toBe(404);
    expect((await h.get('/v1/sweeps/sw-nothere/report?format=pdf')).status).toBe(422);
    const id = await create(h);
    const other = await h.bd.app.inject({ method: 'GET', url: `/v1/sweeps/${id}`, headers: { 'x-tenant-id': 'other' } });
    expect(other.statusCode).toBe(404);
    await pollSweep(h, id);
    expect((await getSweep(h, id)).status).toBe('succeeded');
  });
});
