import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { isTerminal, JobRecordSchema, type JobRecord } from '../shared';
import { SettingsStore } from '../src-main/app/settings';
import { startFakeKubernetes, type FakeKubernetes } from '../test/fakes/kubernetes';
import { startFakeOllama, type FakeOllama } from '../test/fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, defaultOffers, makeOffer, startFakeVast, type FakeVast } from '../test/fakes/vast';
import { seedJobs } from './seed-jobs';
import { ROOT, freePort, requireBuilt, startServer, type ServerProcess } from './support';

/**
 * A world for the Overview/Models/Compare/Settings pages and the axe pass: the real headless
 * server (dist/main/server.js) with its renderer, pointed at the fake Vast.ai, Ollama and
 * Kubernetes on 127.0.0.1, authenticated with the app token the desktop app would have created
 * (its hash in settings.json, the plaintext in the 0600 api-token file), and a few jobs run
 * through the API: two finished benchmarks (one on a rented GPU), one failed job.
 */

export const CHROMIUM = process.env.BENCHDESK_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'screenshots');
/**
 * The README's pictures. A test run writes them beside the other screenshots (git-ignored), so
 * `npm test` never changes tracked files; `npm run screenshots:docs` refreshes docs/screenshots/.
 */
export const DOC_SHOTS = process.env.UPDATE_DOC_SCREENSHOTS === '1' ? path.join(ROOT, 'docs', 'screenshots') : path.join(ROOT, 'screenshots', 'readme');

export type World = {
  server: ServerProcess;
  /** The server's environment (its port included): restart() starts it again on the same data dir and address. */
  env: Record<string, string>;
  /** Stops the server (if running) and starts it again; the world then talks to the new process. */
  restart(): Promise<void>;
  baseUrl: string;
  dataDir: string;
  /** The token the server accepts now (rotation changes it). */
  token: string;
  ollama: FakeOllama;
  vast: FakeVast;
  k8s: FakeKubernetes;
  jobs: { rented: JobRecord; existing: JobRecord; failed: JobRecord };
  call(method: 'GET' | 'POST', url: string, body?: unknown, token?: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
};

export type WorldOptions = {
  /** Finished jobs written into the data dir before the server opens it (e2e/seed-jobs.ts): a long Jobs list. */
  seedJobs?: number;
  /** Anything else written into the data dir before the server opens it (e.g. e2e/seed-benchmarks.ts). */
  seed?: (dataDir: string) => Promise<unknown>;
};

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set BENCHDESK_CHROMIUM`);
  requireBuilt(['dist/main/server.js', 'dist/renderer/index.html']);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const ollama = await startFakeOllama({});
    cleanups.push(() => ollama.close());
    // Plus an expensive 8-GPU machine: a run of a few seconds on it costs cents, not a rounded-away zero.
    const vast = await startFakeVast({ offers: [...defaultOffers(), makeOffer({ id: 20000099, gpu_name: 'H200', num_gpus: 8, gpu_ram: 143771, dph_base: 36, reliability2: 0.999 })] });
    cleanups.push(() => vast.close());
    vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
    // Ready at the first poll: the server's real polling (2 s) then waits once, not four times.
    vast.setKnob('pollsPerPhase', { scheduling: 0, created: 0, loading: 0 });
    const k8s = await startFakeKubernetes({ liveClock: true });
    cleanups.push(() => k8s.close());
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-ui2-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const { token } = await new SettingsStore(dataDir).ensureApiToken();
    if (options.seedJobs) await seedJobs(dataDir, options.seedJobs);
    if (options.seed) await options.seed(dataDir);
    const env: Record<string, string> = {
      BENCHDESK_HOST: '127.0.0.1',
      BENCHDESK_PORT: String(await freePort()),
      BENCHDESK_DATA_DIR: dataDir,
      BENCHDESK_SERVE_UI: '1',
      BENCHDESK_SHUTDOWN_GRACE_S: '0',
      MARKETPLACE_API_URL: vast.url,
      BENCHDESK_MARKETPLACE_PACING: '0',
      VAST_API_KEY: FAKE_VAST_KEY,
      KUBECONFIG: k8s.kubeconfigPath,
      SERVICE_API_TOKENS: '',
      SERVICE_API_AUTH_DISABLED: '',
    };
    let server = await startServer(env);
    cleanups.push(() => server.stop());

    const world: World = {
      server,
      env,
      async restart() {
        await server.stop();
        server = await startServer(env);
        world.server = server;
      },
      baseUrl: server.baseUrl,
      dataDir,
      token,
      ollama,
      vast,
      k8s,
      jobs: undefined as unknown as World['jobs'],
      async call(method, url, body, tok) {
        const res = await fetch(`${server.baseUrl}${url}`, {
          method,
          headers: { authorization: `Bearer ${tok ?? world.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON
        }
        return { status: res.status, body: parsed };
      },
      async close() {
        for (const c of cleanups.reverse()) await c().catch(() => undefined);
      },
    };

    const submit = async (kind: string, request: Record<string, unknown>): Promise<string> => {
      const res = await world.call('POST', `/v1/jobs/${kind}`, request);
      if (res.status !== 202) throw new Error(`POST /v1/jobs/${kind}: ${res.status} ${JSON.stringify(res.body)}\n${server.output()}`);
      return (res.body as { job_id: string }).job_id;
    };
    const question = 'Why is the shop down?';
    const rentedId = await submit('benchmark', {
      marketplace: true,
      template_hash: OLLAMA_TEMPLATE_HASH,
      min_dph: 30,
      max_dph: 40,
      reliability: 0.99,
      model: 'llama3.1:8b',
      question,
      kubeconfig: k8s.kubeconfigPath,
    });
    const existingId = await submit('benchmark', { backend_url: ollama.url, model: 'qwen2.5:7b', question, kubeconfig: k8s.kubeconfigPath });
    // Port 9 (discard) on loopback: nothing listens, so the check fails with a clear reason.
    const failedId = await submit('llm-instance', { backend_url: 'http://127.0.0.1:9', model: 'llama3.1:8b' });
    const [rented, existing, failed] = await Promise.all([waitForEnd(world, rentedId), waitForEnd(world, existingId), waitForEnd(world, failedId)]);
    world.jobs = { rented, existing, failed };
    return world;
  } catch (err) {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    throw err;
  }
}

export async function getJob(world: World, id: string): Promise<JobRecord> {
  const res = await world.call('GET', `/v1/jobs/${encodeURIComponent(id)}`);
  if (res.status !== 200) throw new Error(`GET job ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return JobRecordSchema.parse(res.body);
}

export async function waitForEnd(world: World, id: string, timeoutMs = 60_000): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(world, id);
    if (isTerminal(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms: ${JSON.stringify(job.progress)}\n${world.server.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-quic'] });
}

/** A page signed in with the world's token (it moves from the hash into sessionStorage), collecting console errors. */
export async function openApp(browser: Browser, world: World, options: { dark?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: options.dark ? 'dark' : 'light', acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    // A failed load names its URL: "404 (Not Found)" alone does not say what was missing.
    if (msg.type() === 'error') errors.push(msg.location().url && msg.text().startsWith('Failed to load resource') ? `${msg.text()} (${msg.location().url})` : msg.text());
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  await page.goto(`${world.baseUrl}/ui/#token=${world.token}`);
  await page.locator('[data-testid="app-ready"]').waitFor({ timeout: 15_000 });
  return { page, errors };
}

/** Goes to a hash route and waits for the page's root. */
export async function gotoRoute(page: Page, world: World, route: string, testId: string): Promise<void> {
  await page.goto(`${world.baseUrl}/ui/#${route}`);
  try {
    await page.locator(`[data-testid="${testId}"]`).waitFor({ timeout: 15_000 });
  } catch (err) {
    const shown = await page.locator('body').innerText().catch(() => '(no body)');
    throw new Error(`${testId} did not appear at #${route}; the page shows:\n${shown.slice(0, 1500)}`, { cause: err });
  }
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
