import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { isTerminal, type CostEstimationResponse, type JobRecord, type JobStatus, type LlmModelsQuery, type LlmModelsResponse } from '../../shared';
import type { Providers } from '../../src-main/composition/providers';
import { createBenchdesk, startBenchdesk, type Benchdesk, type BenchdeskOptions } from '../../src-main/composition/start';
import { createTestHandlers, type Recorder } from './handlers';

export const TOKENS = { default: 'tok-default-0123456789', acme: 'tok-acme-abcdefghij' } as const;
export const TOKENS_ENV = `default:${TOKENS.default}, acme:${TOKENS.acme}`;

export const stubEstimate: CostEstimationResponse = {
  projected_cost_usd: 0.5,
  cost_driver: 'marketplace',
  resource_impact: 'low',
  local_energy_kwh: 0,
  confidence_score: 0.5,
  warning: null,
  basis: 'price_range',
  hours: 1,
  cost_range_usd: { low: 0, expected: 0.5, high: 1 },
};

export function stubProviders(): Pick<Providers, 'estimate' | 'catalog' | 'listLlmModels'> {
  return {
    estimate: async () => stubEstimate,
    catalog: () => [{ name: 'llama3:8b', vram_mb: 8000, required_disk_gb: 10 }],
    listLlmModels: async (q: LlmModelsQuery): Promise<LlmModelsResponse> => ({
      backend_url: q.backend_url,
      backend_type: 'llmserver',
      backend_api: 'ollama',
      models: [{ name: 'llama3:8b' }],
      running_models: [],
    }),
  };
}

export type Clock = { now(): number; advance(ms: number): void };

export function fakeClock(start = Date.now()): Clock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export type TestBench = {
  bd: Benchdesk;
  dir: string;
  clock: Clock;
  recorder: Recorder;
  /** inject() with the default tenant's bearer token unless headers say otherwise. */
  req(options: InjectOptions & { tenant?: keyof typeof TOKENS; noAuth?: boolean }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
};

export type BenchOptions = {
  env?: NodeJS.ProcessEnv;
  dir?: string;
  start?: boolean;
  sseHeartbeatMs?: number;
  validateAgents?: readonly string[];
  recorder?: ReturnType<typeof createTestHandlers>;
  extra?: Partial<BenchdeskOptions>;
};

export async function tmpDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'benchdesk-api-'));
}

/** Builds the whole product on a temp data dir with test handlers and stub providers. */
export async function makeBench(options: BenchOptions = {}): Promise<TestBench> {
  const dir = options.dir ?? (await tmpDir());
  const clock = fakeClock();
  const { handlers, recorder } = options.recorder ?? createTestHandlers(options.validateAgents ? { validateAgents: options.validateAgents } : {});
  const bdOptions: BenchdeskOptions = {
    dataDir: dir,
    env: { SERVICE_API_TOKENS: TOKENS_ENV, BENCHDESK_SHUTDOWN_GRACE_S: '0', ...options.env },
    logger: false,
    handlers,
    providers: stubProviders(),
    authNow: clock.now,
    now: () => new Date(clock.now()),
    port: 0,
    ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
    ...options.extra,
  };
  const bd = options.start ? await startBenchdesk(bdOptions) : await createBenchdesk(bdOptions);
  return {
    bd,
    dir,
    clock,
    recorder,
    req({ tenant = 'default', noAuth, ...inject }) {
      const headers: Record<string, string> = noAuth ? {} : { authorization: `Bearer ${TOKENS[tenant]}`, ...(tenant === 'default' ? {} : { 'x-tenant-id': tenant }) };
      return bd.app.inject({ ...inject, headers: { ...headers, ...(inject.headers as Record<string, string> | undefined) } });
    },
    close: () => bd.close(),
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Polls `fn` until it returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, what = 'condition', timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function waitForStatus(bd: Benchdesk, jobId: string, statuses: JobStatus | readonly JobStatus[], timeoutMs = 10_000): Promise<JobRecord> {
  const wanted: readonly JobStatus[] = typeof statuses === 'string' ? [statuses] : statuses;
  const job = await waitFor(async () => {
    const current = await bd.store.getJob(jobId);
    return current && wanted.includes(current.status) ? current : undefined;
  }, `job ${jobId} to be ${wanted.join('|')}`, timeoutMs);
  // The engine stores a job's end before its terminal event: give that event a moment to land, so a test that reads
  // the events next sees it (a full disk may drop it, so this does not fail when it never comes).
  if (isTerminal(job.status)) {
    const terminalEvent = `job.${job.status}`;
    await waitFor(async () => (await bd.store.listEvents(jobId)).some((e) => e.event === terminalEvent) || undefined, terminalEvent, 2_000).catch(() => undefined);
  }
  return job;
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}
