import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared';
import { DEFAULT_FAKE_MODELS, startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';

/**
 * The desktop app's composition run as its own plain Node process (as a red team ran it): the
 * marketplace key it stores, the key a job keeps, and background work that must never take the
 * process down.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Inside node_modules so the bundle's external imports resolve. */
const OUT_DIR = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-desktop-test');
let entry = '';

beforeAll(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  entry = path.join(OUT_DIR, `desktop-composition-${randomBytes(4).toString('hex')}.mjs`);
  await build({
    entryPoints: [path.join(import.meta.dirname, 'desktop-composition-entry.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await rm(entry, { force: true });
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

type App = { child: ChildProcess; url: string; output: () => string; token: string; exited: Promise<number | null> };

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-desktop-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function startApp(dir: string, env: Record<string, string> = {}): Promise<App> {
  const tuning = { instancesTuning: { sweepIntervalMs: 100, releaseRetryDelayMs: 5 }, workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5 } };
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, BENCHDESK_DATA_DIR: dir, BENCHDESK_LOG_LEVEL: 'info', BENCHDESK_SHUTDOWN_GRACE_S: '0', TEST_TUNING: JSON.stringify(tuning), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (!(url = /LISTENING (\S+)/.exec(out)?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the app did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const token = (await readFile(path.join(dir, 'api-token'), 'utf8')).trim();
  return { child, url, output: () => out, token, exited };
}

async function call(app: App, method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${app.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${app.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const alive = (app: App): boolean => app.child.exitCode === null && app.child.signalCode === null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function fakes(): Promise<{ vast: FakeVast; ollama: FakeOllama }> {
  const ollama = await startFakeOllama({ models: DEFAULT_FAKE_MODELS, registry: [{ name: 'mistral:7b', size: 4_113_301_824, family: 'llama', parameter_size: '7.2B' }] });
  const vast = await startFakeVast();
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
  cleanups.push(async () => {
    await vast.close();
    await ollama.close();
  });
  return { vast, ollama };
}

describe('keys that cannot be sent (the desktop composition, its own process)', () => {
  it('saving a key with a non-Latin-1 character answers 422, saves nothing, and the process stays up', async () => {
    const { vast } = await fakes();
    const dir = await dataDir();
    const app = await startApp(dir, { MARKETPLACE_API_URL: vast.url });
    const saved = await call(app, 'POST', '/v1/settings/marketplace-key', { key: 'vast-key-€-0123456789' });
    expect(saved.status).toBe(422);
    expect(JSON.stringify(saved.body)).toMatch(/printable ASCII/);
    expect(existsSync(path.join(dir, 'test-app-key'))).toBe(false);
    // The key test answers 4xx whatever it is given.
    for (const key of ['ключ', 'x'.repeat(600), 'two words', 5, null]) {
      const tested = await call(app, 'POST', '/v1/settings/marketplace-key/test', { key });
      expect(tested.status, `${JSON.stringify(key)}: ${JSON.stringify(tested.body)}`).toBe(422);
    }
    // Several sweeps later: still up, and everything answers.
    await sleep(600);
    expect(alive(app)).toBe(true);
    expect((await call(app, 'GET', '/healthz')).status).toBe(200);
    const settings = await call(app, 'GET', '/v1/settings');
    expect((settings.body.environment as { marketplace_key: { configured: boolean } }).marketplace_key.configured).toBe(false);
    expect((await call(app, 'GET', '/v1/marketplace/instances')).status).toBe(200);
    expect((await call(app, 'POST', '/v1/estimates', { marketplace: true, min_dph: 0.1, max_dph: 1 })).body).toMatchObject({ basis: 'price_range' });
    expect(app.output()).not.toMatch(/contained/);
  }, 30_000);

  it('a stored key or VAST_API_KEY that cannot be sent is ignored at start with a log line: no crash, at this start or any other', async () => {
    const { vast } = await fakes();
    const dir = await dataDir();
    // As an older version may have saved it.
    await writeFile(path.join(dir, 'test-app-key'), 'stored-ключ-0123456789');
    const app = await startApp(dir, { MARKETPLACE_API_URL: vast.url, VAST_API_KEY: 'env-ключ-0123456789' });
    await sleep(600);
    expect(alive(app)).toBe(true);
    expect(app.output()).toMatch(/the marketplace key stored by the app is ignored: the marketplace key must be printable ASCII/);
    expect(app.output()).toMatch(/VAST_API_KEY is ignored/);
    expect((await call(app, 'GET', '/v1/marketplace/instances')).body).toMatchObject({ instances: [], note: expect.stringMatching(/no marketplace key/) });
    expect((await call(app, 'POST', '/v1/estimates', { marketplace: true, min_dph: 0.1, max_dph: 1 })).body).toMatchObject({ basis: 'price_range' });
    // A good key can be saved over it, and is used at once.
    expect((await call(app, 'POST', '/v1/settings/marketplace-key', { key: FAKE_VAST_KEY })).status).toBe(200);
    expect((await call(app, 'POST', '/v1/estimates', { marketplace: true, min_dph: 0.1, max_dph: 1 })).body).toMatchObject({ basis: 'live_offers' });
    expect(vast.calls.every((c) => c.headers.authorization === `Bearer ${FAKE_VAST_KEY}`)).toBe(true);
  }, 30_000);

  it('an error thrown in a timer, or a promise nobody awaited, is logged and contained', async () => {
    const dir = await dataDir();
    const app = await startApp(dir, { TEST_THROW_IN_TIMER: '1' });
    await until(async () => /boom in a promise/.test(app.output()), 'both errors to be reported');
    await sleep(200);
    expect(alive(app)).toBe(true);
    const lines = app.output().split('\n');
    expect(lines.some((l) => l.includes('an uncaught error was contained; benchdesk keeps running') && l.includes('boom in a timer'))).toBe(true);
    expect(lines.some((l) => l.includes('an unhandled promise rejection was contained; benchdesk keeps running') && l.includes('boom in a promise'))).toBe(true);
    expect((await call(app, 'GET', '/healthz')).status).toBe(200);
  }, 30_000);
});

describe('a job keeps the key it rented with (the desktop composition, its own process)', () => {
  it('the key is changed while a machine is held: the release still succeeds, on cancel and after a SIGKILL', async () => {
    const { vast, ollama } = await fakes();
    const dir = await dataDir();
    await writeFile(path.join(dir, 'test-app-key'), FAKE_VAST_KEY);
    const first = await startApp(dir, { MARKETPLACE_API_URL: vast.url });
    ollama.setKnobs({ pullLineDelayMs: 60_000 });
    const request = { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, model: 'mistral:7b', backend_warmup: false };
    const holding = async (app: App): Promise<{ jobId: string; instanceId: number }> => {
      const submitted = await call(app, 'POST', '/v1/jobs/llm-instance', request);
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
      const jobId = String(submitted.body.job_id);
      const instanceId = await until(async () => ((await call(app, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord).resources?.marketplace_instance_id, 'the machine to be rented');
      await until(async () => ollama.calls.some((c) => c.path === '/api/pull'), 'the pull to start');
      return { jobId, instanceId };
    };

    // 1. A key the marketplace refuses is saved while the job holds its machine; then the job is cancelled.
    const a = await holding(first);
    const refused = 'a-key-the-marketplace-refuses-0123';
    expect((await call(first, 'POST', '/v1/settings/marketplace-key', { key: refused })).status).toBe(200);
    expect((await call(first, 'POST', `/v1/jobs/${a.jobId}/cancel`)).status).toBe(202);
    const cancelled = await until(async () => {
      const job = (await call(first, 'GET', `/v1/jobs/${a.jobId}`)).body as unknown as JobRecord;
      return job.status === 'cancelled' ? job : null;
    }, 'the cancel');
    expect(cancelled.resources).toMatchObject({ marketplace_instance_released: true });
    expect(vast.liveInstances().map((i) => i.id)).not.toContain(a.instanceId);
    expect(vast.callsTo('destroy').map((c) => c.headers.authorization)).toEqual([`Bearer ${FAKE_VAST_KEY}`]);

    // 2. Another job rents with the good key (saved again), the key changes again, and the app is killed.
    expect((await call(first, 'POST', '/v1/settings/marketplace-key', { key: FAKE_VAST_KEY })).status).toBe(200);
    const b = await holding(first);
    expect((await call(first, 'POST', '/v1/settings/marketplace-key', { key: refused })).status).toBe(200);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(vast.liveInstances().map((i) => i.id)).toContain(b.instanceId);

    // 3. The next start has only the refused key; recovery releases the machine with the key its job rented with.
    ollama.setKnobs({ pullLineDelayMs: 0 });
    const second = await startApp(dir, { MARKETPLACE_API_URL: vast.url });
    const recovered = await until(async () => {
      const job = (await call(second, 'GET', `/v1/jobs/${b.jobId}`)).body as unknown as JobRecord;
      return job.status === 'failed' && job.resources?.marketplace_instance_released ? job : null;
    }, 'recovery to release the machine');
    expect(recovered.error_code).toBe('interrupted');
    expect(vast.liveInstances()).toEqual([]);
    expect(vast.callsTo('destroy').map((c) => c.headers.authorization)).toEqual([`Bearer ${FAKE_VAST_KEY}`, `Bearer ${FAKE_VAST_KEY}`]);
    expect(alive(second)).toBe(true);
  }, 60_000);
});
