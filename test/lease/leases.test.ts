import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProvisioningFailedError, type Lease } from '../../src-main/lease/lease';
import { LeaseBook } from '../../src-main/lease/lease-book';
import type { LeaseTuning } from '../../src-main/lease/lease-deps';
import type { LeaseOwner } from '../../src-main/lease/lease-record';
import { Leases } from '../../src-main/lease/leases';
import { Ledger } from '../../src-main/lease/ledger';
import { resolveCatalogModel } from '../../src-main/marketplace/catalog';
import { HeldKeys } from '../../src-main/marketplace/held-keys';
import { jobLabel } from '../../src-main/marketplace/labels';
import type { VastClientOptions } from '../../src-main/marketplace/vast-client';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, makeOffer, startFakeVast, type FakeVast } from '../fakes/vast';
import { clientFor, must } from '../marketplace/helpers';

/**
 * The lease against the fake Vast.ai: a machine from search to release with its costs in the
 * ledger; a lost create found by its label and released; a release retried until confirmed, the
 * machine counting meanwhile; rents at once against a rate-limited service; recovery of a lease a
 * crash left open; a kept machine's limit; the held key and proxy token gone with the machine.
 */

const INSTALL = 'lease0test00';
const model = must(resolveCatalogModel('llama3.1:8b'));
const request = { template_hash: OLLAMA_TEMPLATE_HASH, min_dph: 0, max_dph: 1, reliability: 0.99 };
const FAST: LeaseTuning = { waitTimeoutMs: 5_000, pollIntervalMs: 5, bootWindowMs: 50, releaseRetryDelayMs: 5, releaseRetryMs: 30, maxReleaseRetryMs: 100, quickLookups: 2, quickLookupDelayMs: 5, huntMs: 5_000, huntDelayMs: 40 };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

type Rig = { vast: FakeVast; dir: string; leases: Leases; notified: string[]; clock: { t: number | null } };

async function rig(options: { vast?: FakeVast; dir?: string; tuning?: LeaseTuning; client?: Partial<VastClientOptions>; keptLimit?: number | null } = {}): Promise<Rig> {
  const vast = options.vast ?? (await startFakeVast({ knobs: { pollsPerPhase: { scheduling: 1, created: 1, loading: 1 } } }));
  if (!options.vast) cleanups.push(() => vast.close());
  const dir = options.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'bd-lease-')));
  if (!options.dir) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const client = clientFor(vast, options.client ?? {});
  const access = { current: () => ({ key: FAKE_VAST_KEY, client }), clientFor: () => client };
  const clock: { t: number | null } = { t: null };
  const ledger = new Ledger(new LeaseBook(dir, quiet), () => clock.t ?? Date.now());
  const notified: string[] = [];
  const leases = new Leases({
    ledger,
    access,
    heldKeys: new HeldKeys(path.join(dir, 'secrets')),
    installId: INSTALL,
    dataDir: dir,
    log: quiet,
    tuning: options.tuning ?? FAST,
    notify: (lease, e) => void notified.push(`${lease.lease_id} ${e.event}:${e.status} ${e.message ?? ''}`),
    keptLimitDefault: () => options.keptLimit ?? null,
  });
  await leases.load();
  cleanups.push(() => leases.close());
  return { vast, dir, leases, notified, clock };
}

const owner = (id: string): LeaseOwner => ({ kind: 'job', job_id: id, job_kind: 'benchmark' });

function provision(lease: Lease, signal = AbortSignal.timeout(20_000)) {
  return lease.provision({ request, sizing: model, budget: { maxCostUsd: null, durationSeconds: 3600 }, signal });
}

async function until<T>(fn: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a lease, from search to release', () => {
  it('rents, runs, counts its machine time and downloads in the ledger, and on release forgets the held key and the proxy token', async () => {
    const r = await rig();
    const lease = await r.leases.open({ owner: owner('job-a'), tenantId: 'default' });
    const machine = await provision(lease);
    expect(lease.record).toMatchObject({ state: 'held', instance_id: machine.instanceId, label: jobLabel(INSTALL, 'job-a'), dph_total: machine.dphTotal });
    // The key it rented with and its proxy token are on disk (0600) while it is held.
    expect(await readdir(path.join(r.dir, 'secrets'))).toEqual(expect.arrayContaining(['rent-key-job-a.json', `instance-${machine.instanceId}.token`]));
    await lease.addDownload({ model: 'llama3.1:8b', gb: 4.9, usd: 0.196, source: 'pull' });
    expect(lease.cost().download_usd).toBe(0.196);
    const outcome = await lease.release('done');
    expect(outcome).toMatchObject({ released: true, verified: true, retrying: false });
    expect(outcome.cost.cost_usd).toBeGreaterThanOrEqual(0.196);
    expect(lease.record).toMatchObject({ state: 'released', release_error: null });
    expect(r.vast.liveInstances()).toEqual([]);
    // Item 34.7: the plaintext key of a released machine is gone from secrets/, and so is its token.
    expect(await readdir(path.join(r.dir, 'secrets'))).toEqual([]);
    // The book has it: a restart reads the same cost.
    const again = new Ledger(new LeaseBook(r.dir, quiet));
    await again.load();
    expect(again.cost('job-a')?.cost_usd).toBe(outcome.cost.cost_usd);
  });

  it('a machine that will not start is released before the error propagates, and the error says so', async () => {
    const r = await rig();
    r.vast.setKnob('outcome', 'exited');
    const lease = await r.leases.open({ owner: owner('job-b'), tenantId: 'default' });
    const err = await provision(lease).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProvisioningFailedError);
    expect(err).toMatchObject({ code: 'instance_failed', release: { verified: true } });
    expect((err as Error).message).toMatch(/will not start.*destroyed and confirmed gone/);
    expect(lease.record.state).toBe('released');
    expect(r.vast.liveInstances()).toEqual([]);
    expect(existsSync(path.join(r.dir, 'secrets', 'rent-key-job-b.json'))).toBe(false);
  });
});

describe('a lost rent is found and released', () => {
  it('a create whose answer is lost, the machine appearing seconds later: the label is hunted and the machine released (nothing else rented)', async () => {
    const r = await rig();
    r.vast.setKnob('rentAnswerLost', true);
    r.vast.setKnob('rentVisibleAfterMs', 300);
    const lease = await r.leases.open({ owner: owner('job-lost'), tenantId: 'default' });
    const err = await provision(lease).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/keeps looking for its label/);
    // Still open: the hunt goes on after the rent gave up.
    expect(lease.record.state).toBe('renting');
    expect(lease.record.hunt_until).not.toBeNull();
    const found = await until(() => (lease.record.state === 'released' ? lease.record : null), 'the hunt to release the machine');
    expect(r.vast.callsTo('asks')).toHaveLength(1);
    expect(r.vast.liveInstances()).toEqual([]);
    // It billed from its start: the ledger counts it.
    expect(found.instance_id).toBe(30000001);
    expect(found.rented_at).not.toBeNull();
    expect(r.notified.some((n) => /found instance 30000001 by its label/.test(n))).toBe(true);
    // A failed lookup is retried, never taken as "nothing there": the hunt kept looking until the machine appeared.
    expect(r.vast.callsTo('list_v1').length).toBeGreaterThan(2);
    await until(() => !existsSync(path.join(r.dir, 'secrets', 'rent-key-job-lost.json')), 'its held key to be removed');
  });

  it('a lease a crash left open while renting is hunted at the next start, whatever the listing does on the way', async () => {
    const first = await rig();
    first.vast.setKnob('rentAnswerDelayMs', 60_000);
    const lease = await first.leases.open({ owner: owner('job-crash'), tenantId: 'default' });
    void provision(lease, AbortSignal.timeout(60_000)).catch(() => undefined);
    await until(() => first.vast.liveInstances().length > 0, 'the create to land');
    // "SIGKILL": the process is gone; the book says renting, the machine exists.
    const next = await rig({ vast: first.vast, dir: first.dir });
    first.vast.setKnob('failNext', { count: 2, status: 503, endpoints: ['list_v1'] });
    expect(await next.leases.recover()).toMatchObject({ hunting: 1 });
    const settled = await until(() => (next.leases.ledger.get('job-crash')?.state === 'released' ? next.leases.ledger.get('job-crash') : null), 'the machine to be released');
    expect(settled).toMatchObject({ state: 'released', instance_id: 30000001 });
    expect(first.vast.liveInstances()).toEqual([]);
  });
});

describe('a release that fails is retried until confirmed', () => {
  it('DELETE answered 503 again and again: the lease is `releasing`, keeps counting, is listed as pending, and is retried until it is gone', async () => {
    const r = await rig({ client: { retry: { maxAttempts: 1 } } });
    const lease = await r.leases.open({ owner: owner('job-c'), tenantId: 'default' });
    await provision(lease);
    r.vast.setKnob('failNext', { count: 12, status: 503, endpoints: ['destroy'] });
    const first = await lease.release('done');
    expect(first).toMatchObject({ verified: false, retrying: true });
    expect(lease.record.state).toBe('releasing');
    expect(lease.record.release_error).toMatch(/503/);
    const before = lease.cost().cost_usd;
    await until(() => lease.record.state === 'released', 'the retries to confirm the release');
    expect(r.vast.liveInstances()).toEqual([]);
    expect(lease.cost().cost_usd).toBeGreaterThanOrEqual(before);
    expect(r.vast.callsTo('destroy').filter((c) => c.status === 503)).toHaveLength(12);
  });

  it('an asynchronous destroy (accepted, gone a moment later) is confirmed by a later round, not given up', async () => {
    const r = await rig();
    r.vast.setKnob('destroyLagMs', 150);
    const lease = await r.leases.open({ owner: owner('job-lag'), tenantId: 'default' });
    await provision(lease);
    await lease.release('done');
    await until(() => lease.record.state === 'released', 'the lagging destroy to be confirmed');
    expect(r.vast.liveInstances()).toEqual([]);
  });
});

describe('pacing', () => {
  it('8 rents at once against a service that allows one create per interval and rate-limits reads: all succeed, none released for a refused read', async () => {
    // One GPU name per rent, as a sweep with 8 machines at once rents them.
    const gpus = Array.from({ length: 8 }, (_, i) => `RTX 40${i}0`);
    const offers = gpus.map((gpu, i) => makeOffer({ id: 21000000 + i, gpu_name: gpu, gpu_ram: 24564, dph_base: 0.2 + i / 100 }));
    const vast = await startFakeVast({ offers, knobs: { pollsPerPhase: { scheduling: 2, created: 1, loading: 2 }, rateLimits: { asks: { intervalMs: 120, penaltyMs: 120 }, show: { intervalMs: 15, penaltyMs: 40 } } } });
    cleanups.push(() => vast.close());
    const r = await rig({ vast, client: { pacing: { routes: { create: { intervalMs: 45, penaltyMs: 120 }, show: { intervalMs: 5, penaltyMs: 40 } } } } });
    const leases = await Promise.all(gpus.map((_, i) => r.leases.open({ owner: owner(`job-p${i}`), tenantId: 'default' })));
    const machines = await Promise.all(
      leases.map((l, i) => l.provision({ request: { ...request, gpu_name: gpus[i] }, sizing: model, budget: { maxCostUsd: null, durationSeconds: 3600 }, signal: AbortSignal.timeout(60_000) })),
    );
    expect(new Set(machines.map((m) => m.instanceId)).size).toBe(8);
    expect(leases.every((l) => l.record.state === 'held')).toBe(true);
    // Reads were refused on the way (the service's limit), and no machine was given up for it.
    expect(vast.callsTo('show').some((c) => c.status === 429)).toBe(true);
    expect(vast.callsTo('destroy')).toHaveLength(0);
    expect(vast.liveInstances()).toHaveLength(8);
  }, 30_000);
});

describe('a kept machine', () => {
  it('answers to its spend limit: reaching it releases the machine and tells its owner', async () => {
    const r = await rig();
    const lease = await r.leases.open({ owner: owner('job-k'), tenantId: 'default' });
    const machine = await provision(lease);
    // An hour later on the ledger's clock: far past a $0.01 limit.
    r.clock.t = Date.parse(machine.rentedAt) + 3_600_000;
    await lease.keep(0.01);
    await until(() => lease.record.state === 'released', 'the kept machine to be released at its limit');
    expect(r.notified.some((n) => n.startsWith('job-k cost.limit_reached:info'))).toBe(true);
    expect(r.vast.liveInstances()).toEqual([]);
  });
});
