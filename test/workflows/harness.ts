import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import {
  API_PATHS,
  JobRecordSchema,
  isTerminal,
  type AgentResult,
  type BenchmarkResult,
  type JobEvent,
  type JobKind,
  type JobRecord,
  type LlmInstanceResult,
} from '../../shared';
import { createBenchdesk, startBenchdesk, type Benchdesk, type BenchdeskOptions } from '../../src-main/composition/start';
import { startFakeKubernetes, type FakeKubernetes, type FakeKubernetesOptions } from '../fakes/kubernetes';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../fakes/ollama';
import { FAKE_VAST_KEY, startFakeVast, type FakeVast, type FakeVastOptions } from '../fakes/vast';

/**
 * End-to-end harness for the job workflows: the real product (createBenchdesk/startBenchdesk) on
 * a temp data dir, its settings taken from an environment that points at the fakes, driven
 * through the HTTP API only (fastify inject: the whole request pipeline, no socket).
 */

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const CLI_PATH = path.join(ROOT, 'dist', 'main', 'cli.js');
export const FAKE_AGENT_BIN = path.join(ROOT, 'test', 'fakes', 'agent-bin');

/** Fast polling against the fakes; the bounds stay generous so a busy machine does not flake. */
export const TUNING = { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5 } as const;
/** The leases' own cadences, scaled down: a failed release retried within 50 ms, a lost rent looked for every 20 ms. */
export const LEASE_TUNING = { bootWindowMs: 50, releaseRetryMs: 50, maxReleaseRetryMs: 500, quickLookups: 2, quickLookupDelayMs: 5, huntDelayMs: 20 } as const;

export type HarnessOptions = {
  /** Start a fake Vast.ai (default: no). */
  vast?: FakeVastOptions | boolean;
  /** Options of the fake Ollama (always started). */
  ollama?: FakeOllamaOptions;
  /** Start a fake Kubernetes API server (default: no). */
  k8s?: FakeKubernetesOptions | boolean;
  /** Put VAST_API_KEY in the environment when the fake Vast runs (default true). */
  vastKey?: boolean;
  /** More environment (BENCHDESK_DRIVER_*, PATH...). */
  env?: NodeJS.ProcessEnv;
  /** Reuse a data dir (crash recovery); otherwise a fresh temp dir, removed by close(). */
  dataDir?: string;
  /** startBenchdesk (recover + listen) instead of createBenchdesk. */
  start?: boolean;
  extra?: Partial<BenchdeskOptions>;
  /** Reuse fakes of another harness (they are then not closed by this one). */
  reuse?: { ollama: FakeOllama; vast?: FakeVast | null; k8s?: FakeKubernetes | null };
};

export type Reply = { status: number; headers: Record<string, unknown>; body: Record<string, unknown> };

export type Harness = {
  bd: Benchdesk;
  dir: string;
  env: NodeJS.ProcessEnv;
  ollama: FakeOllama;
  vast: FakeVast | null;
  k8s: FakeKubernetes | null;
  post(url: string, body: unknown): Promise<Reply>;
  get(url: string): Promise<Reply>;
  /** Closes the product only (the fakes and the data dir stay): a "crash" for recovery tests. */
  closeProduct(): Promise<void>;
  close(): Promise<void>;
};

export function mustVast(h: Harness): FakeVast {
  if (!h.vast) throw new Error('this harness has no fake Vast.ai');
  return h.vast;
}

export function mustK8s(h: Harness): FakeKubernetes {
  if (!h.k8s) throw new Error('this harness has no fake Kubernetes');
  return h.k8s;
}

export async function tempDir(prefix = 'benchdesk-wf-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** PATH with the fake holmes/k8sgpt first and the node running the tests (their shebang needs it). */
export function pathWithFakeAgents(): string {
  return [FAKE_AGENT_BIN, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
}

/** Builds dist/main/cli.js when it is missing (bundled drivers and `driver builtin` run it). */
export function ensureCliBuilt(): string {
  if (!existsSync(CLI_PATH)) {
    const res = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`node scripts/build.mjs failed: ${res.stderr}`);
  }
  return CLI_PATH;
}

/** Environment for a product that talks to the given fakes. */
export function productEnv(parts: { vast?: FakeVast | null; k8s?: FakeKubernetes | null; vastKey?: boolean; env?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    SERVICE_API_AUTH_DISABLED: '1',
    BENCHDESK_SHUTDOWN_GRACE_S: '0',
    PATH: process.env.PATH,
    HOME: process.env.HOME,
  };
  if (parts.vast) {
    env.MARKETPLACE_API_URL = parts.vast.url;
    // The fake does not rate-limit unless a test asks it to: no pacing, so tests stay fast.
    env.BENCHDESK_MARKETPLACE_PACING = '0';
    if (parts.vastKey !== false) env.VAST_API_KEY = FAKE_VAST_KEY;
  }
  if (parts.k8s) env.KUBECONFIG = parts.k8s.kubeconfigPath;
  return { ...env, ...parts.env };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const reuse = options.reuse;
    const ollama = reuse?.ollama ?? (await startFakeOllama(options.ollama));
    if (!reuse) cleanups.push(() => ollama.close());
    let vast: FakeVast | null = reuse?.vast ?? null;
    let k8s: FakeKubernetes | null = reuse?.k8s ?? null;
    if (options.vast && !reuse) {
      const v = await startFakeVast(typeof options.vast === 'object' ? options.vast : {});
      vast = v;
      cleanups.push(() => v.close());
      v.setKnob('ollamaPort', Number(new URL(ollama.url).port));
    }
    if (options.k8s && !reuse) {
      const k = await startFakeKubernetes(typeof options.k8s === 'object' ? options.k8s : {});
      k8s = k;
      cleanups.push(() => k.close());
    }
    const dir = options.dataDir ?? (await tempDir());
    if (!options.dataDir) cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const env = productEnv({ vast, k8s, vastKey: options.vastKey ?? true, env: options.env ?? {} });
    const bdOptions: BenchdeskOptions = {
      dataDir: dir,
      env,
      logger: false,
      port: 0,
      workflowTuning: { ...TUNING },
      ...options.extra,
      leaseTuning: { ...LEASE_TUNING, ...options.extra?.leaseTuning },
    };
    const bd: Benchdesk = options.start ? await startBenchdesk(bdOptions) : await createBenchdesk(bdOptions);
    let productClosed = false;
    const closeProduct = async (): Promise<void> => {
      if (productClosed) return;
      productClosed = true;
      await bd.close();
    };
    const inject = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<Reply> => {
      const res = await bd.app.inject({ method, url, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) });
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(res.body) as Record<string, unknown>;
      } catch {
        parsed = { raw: res.body };
      }
      return { status: res.statusCode, headers: res.headers, body: parsed };
    };
    return {
      bd,
      dir,
      env,
      ollama,
      vast,
      k8s,
      post: (url, body) => inject('POST', url, body),
      get: (url) => inject('GET', url),
      closeProduct,
      async close() {
        await closeProduct();
        for (const c of cleanups.reverse()) await c();
      },
    };
  } catch (err) {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    throw err;
  }
}

/** POST a job; expects 202 and returns its id. */
export async function submit(h: Harness, kind: JobKind, body: Record<string, unknown>): Promise<string> {
  const res = await h.post(`/v1/jobs/${kind}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe('accepted');
  return String(res.body.job_id);
}

export async function getJob(h: Harness, id: string): Promise<JobRecord> {
  const res = await h.get(API_PATHS.job(id));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // Parsed, so every workflow test also checks the served record against the schema.
  return JobRecordSchema.parse(res.body);
}

/** The result of a succeeded job of the given kind (fails the test otherwise). */
export function benchmarkResult(job: JobRecord): BenchmarkResult {
  if (job.kind !== 'benchmark' || !job.result) throw new Error(`expected a benchmark result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}
export function agentResult(job: JobRecord): AgentResult {
  if (job.kind !== 'agentic-agent' || !job.result) throw new Error(`expected an agentic-agent result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}
export function marketplaceLlmResult(job: JobRecord): Extract<LlmInstanceResult, { mode: 'marketplace' }> {
  const result = llmResult(job);
  if (result.mode !== 'marketplace') throw new Error(`expected a marketplace llm-instance result, got mode ${result.mode}`);
  return result;
}
export function llmResult(job: JobRecord): LlmInstanceResult {
  if (job.kind !== 'llm-instance' || !job.result) throw new Error(`expected an llm-instance result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}

/** Polls GET /v1/jobs/{id} until `until` holds (default: a terminal status), within `timeoutMs`. */
export async function pollJob(
  h: Harness,
  id: string,
  until: (job: JobRecord) => boolean = (job) => isTerminal(job.status),
  timeoutMs = 15_000,
  what = 'a terminal status',
): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  let last: JobRecord | undefined;
  for (;;) {
    last = await getJob(h, id);
    if (until(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`job ${id} did not reach ${what} within ${timeoutMs} ms; last: ${last.status} ${JSON.stringify(last.progress)} ${last.error ?? ''}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Polls until the job is terminal and its closing `job.<status>` event is readable (the status is
 * written just before that event, so a client that reads events right after seeing the status
 * can miss it: wait for both).
 */
export async function waitForEnd(h: Harness, id: string, timeoutMs = 15_000): Promise<{ job: JobRecord; events: JobEvent[] }> {
  const job = await pollJob(h, id, (j) => isTerminal(j.status), timeoutMs);
  const closing = await waitForEvent(h, id, (e) => e.event === `job.${job.status}`, `job.${job.status}`, timeoutMs);
  const events = await getEvents(h, id);
  expect(events.filter((e) => e.event === closing.event)).toHaveLength(1);
  return { job: await getJob(h, id), events };
}

export async function getEvents(h: Harness, id: string): Promise<JobEvent[]> {
  const res = await h.get(API_PATHS.jobEvents(id));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.job_id).toBe(id);
  return res.body.events as JobEvent[];
}

/** Polls the job's events until one matches. */
export async function waitForEvent(h: Harness, id: string, match: (e: JobEvent) => boolean, what: string, timeoutMs = 15_000): Promise<JobEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await getEvents(h, id)).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`job ${id}: no event ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls until `fn` returns something truthy. */
export async function waitUntil<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const line = (e: JobEvent): string => `${e.event}:${e.status}`;

/** Indexes of the first event of each name (with status), asserting each exists and they are in order. */
export function expectInOrder(events: readonly JobEvent[], wanted: readonly string[]): void {
  const lines = events.map(line);
  let from = 0;
  for (const w of wanted) {
    const at = lines.indexOf(w, from);
    expect(at, `event ${w} after position ${from} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
    from = at + 1;
  }
}

/** Seq numbers are strictly increasing within the job's list. */
export function expectMonotonic(events: readonly JobEvent[]): void {
  for (let i = 1; i < events.length; i++) expect((events[i]?.seq ?? 0) > (events[i - 1]?.seq ?? 0)).toBe(true);
}

/** The fake Vast's DELETE and read-back calls for one instance. */
export function destroyCalls(vast: FakeVast, instanceId: number): { deletes: number; readBacksAfterDelete: number } {
  const at = vast.calls.findIndex((c) => c.endpoint === 'destroy' && c.path === `/api/v0/instances/${instanceId}/`);
  if (at < 0) return { deletes: 0, readBacksAfterDelete: 0 };
  const after = vast.calls.slice(at);
  return {
    deletes: after.filter((c) => c.endpoint === 'destroy' && c.path === `/api/v0/instances/${instanceId}/`).length,
    readBacksAfterDelete: after.filter((c) => c.endpoint === 'show' && c.path === `/api/v0/instances/${instanceId}/`).length,
  };
}

/** The key travels only in the Authorization header: never in a URL, query or body. */
export function expectKeyOnlyInHeader(vast: FakeVast): void {
  expect(vast.calls.length).toBeGreaterThan(0);
  for (const call of vast.calls) {
    expect(call.headers.authorization).toBe(`Bearer ${FAKE_VAST_KEY}`);
    expect(call.url).not.toContain(FAKE_VAST_KEY);
    expect(call.rawBody).not.toContain(FAKE_VAST_KEY);
    expect(call.query).not.toHaveProperty('api_key');
  }
}

/**
 * A pass-through proxy in front of a fake Ollama whose `override` can answer some requests
 * itself (a warm-up that 404s...). Returns the port to map in the fake Vast.
 */
export async function startOllamaProxy(
  target: string,
  override: (req: http.IncomingMessage, body: string) => { status: number; body: unknown } | null,
): Promise<{ port: number; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = override(req, body);
      if (answer) {
        const text = JSON.stringify(answer.body);
        res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
        return;
      }
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Vast's Caddy proxy in front of the fake Ollama: every request must carry the instance token
 * (the OPEN_BUTTON_TOKEN of the rent call) as `Bearer <token>` or Basic `vastai:<token>`, or it
 * gets 401. Maps the fake Vast's 11434/tcp to it. `rejected` counts refused requests.
 */
export async function startVastCaddy(h: Harness): Promise<{ rejected: () => number; close(): Promise<void> }> {
  const vast = mustVast(h);
  let rejected = 0;
  const proxy = await startOllamaProxy(h.ollama.url, (req) => {
    const rent = vast.callsTo('asks').at(-1)?.body as { env?: Record<string, string> } | undefined;
    const token = rent?.env?.OPEN_BUTTON_TOKEN;
    const auth = req.headers.authorization ?? '';
    if (token && (auth === `Bearer ${token}` || auth === `Basic ${Buffer.from(`vastai:${token}`).toString('base64')}`)) return null;
    rejected++;
    return { status: 401, body: { error: 'Unauthorized' } };
  });
  vast.setKnob('ollamaPort', proxy.port);
  return { rejected: () => rejected, close: () => proxy.close() };
}
