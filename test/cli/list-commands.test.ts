import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentListSchema, JobListResponseSchema, MarketplaceTemplateListSchema, StoredRequestSchemas, type JobRecord } from '../../shared';
import { apiSort } from '../../src-main/cli/commands/jobs';
import { openJobStore } from '../../src-main/store/job-store';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, PRIVATE_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { makeJob } from '../helpers/store';
import { tempDir } from '../workflows/harness';
import { buildCliBundle, cliEnv, runCli, stdoutJson, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * `benchdesk jobs list --search/--sort`, `benchdesk agents` and `benchdesk templates`: the real CLI
 * bundle, in-process (--local) on a data dir seeded with jobs whose models, failures, durations and
 * costs differ, and against the fake Vast.ai for the templates.
 */

let cliPath: string;
let cleanupCli: () => Promise<void>;
let vast: FakeVast;
let dataDir: string;

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const agentRequest = (model: string) => StoredRequestSchemas['agentic-agent'].parse({ question: 'Why?', model, agent: 'builtin', backend_url: 'http://127.0.0.1:11434' });
const benchRequest = (model: string) => StoredRequestSchemas.benchmark.parse({ question: 'Why?', model, backend_url: 'http://127.0.0.1:11434' });

/** Four ended jobs: ids say what each is, so orders read plainly in the assertions. */
const JOBS: JobRecord[] = [
  // Oldest; 5 s; nothing rented.
  makeJob({ job_id: 'job-qwen-ok', kind: 'agentic-agent', status: 'succeeded', message: 'done', request: agentRequest('qwen3:8b'), created_at: at(0), started_at: at(0), finished_at: new Date(T0 + 5_000).toISOString(), updated_at: at(1) }),
  // 30 min on a $2/h machine: $1.00.
  makeJob({
    job_id: 'job-llama-failed',
    kind: 'benchmark',
    status: 'failed',
    message: 'failed',
    request: benchRequest('llama3.1:8b'),
    created_at: at(10),
    started_at: at(10),
    finished_at: at(40),
    updated_at: at(40),
    error: 'No offer fits ($0.10–$0.20/h, reliability ≥ 99%). Raise Max $/h, lower the reliability, or pick a smaller model.',
    error_code: 'no_offers',
    resources: { dph_total: 2, rented_at: at(10), marketplace_instance_released: true },
  }),
  // 60 min on a $0.25/h machine: $0.25; the longest.
  makeJob({
    job_id: 'job-llama-long',
    kind: 'benchmark',
    status: 'succeeded',
    message: 'done',
    request: benchRequest('llama3.1:8b'),
    created_at: at(20),
    started_at: at(20),
    finished_at: at(80),
    updated_at: at(80),
    resources: { dph_total: 0.25, rented_at: at(20), marketplace_instance_released: true },
  }),
  // Newest; cancelled after 2 min; nothing rented.
  makeJob({ job_id: 'job-qwen-cancelled', kind: 'agentic-agent', status: 'cancelled', message: 'cancelled', request: agentRequest('qwen3:8b'), created_at: at(30), started_at: at(30), finished_at: at(32), updated_at: at(32) }),
];

beforeAll(async () => {
  const [built, v, dir] = await Promise.all([buildCliBundle(), startFakeVast(), tempDir('benchdesk-cli-lists-')]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [vast, dataDir] = [v, dir];
  const store = await openJobStore({ dataDir, logger: { info: () => undefined, warn: () => undefined }, releaseLockOnExit: false });
  for (const job of JOBS) await store.createJob(job);
  await store.close();
}, 60_000);

afterAll(async () => {
  await Promise.all([vast?.close(), cleanupCli?.(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

const cli = (args: readonly string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
  runCli(cliPath, [...args, '--local'], cliEnv({ BENCHDESK_DATA_DIR: dataDir, MARKETPLACE_API_URL: vast.url, VAST_API_KEY: FAKE_VAST_KEY, BENCHDESK_MARKETPLACE_PACING: '0', ...extra }));
const ids = (run: CliRun): string[] => JobListResponseSchema.parse(stdoutJson(run)).jobs.map((j) => j.job_id);

describe('jobs list --sort', () => {
  it('maps to the API order: highest or newest first, --reverse flips it', () => {
    expect(apiSort('created', false)).toBe('-created');
    expect(apiSort('cost', false)).toBe('-cost');
    expect(apiSort('duration', true)).toBe('duration');
  });

  it('orders by creation (default), cost and duration, and the other way round', async () => {
    const byCreated = await cli(['jobs', 'list', '--json']);
    expect(byCreated.code, byCreated.stderr).toBe(0);
    expect(ids(byCreated)).toEqual(['job-qwen-cancelled', 'job-llama-long', 'job-llama-failed', 'job-qwen-ok']);
    // Jobs without a cost come last either way.
    expect(ids(await cli(['jobs', 'list', '--sort', 'cost', '--json']))).toEqual(['job-llama-failed', 'job-llama-long', 'job-qwen-cancelled', 'job-qwen-ok']);
    expect(ids(await cli(['jobs', 'list', '--sort', 'cost', '--reverse', '--json'])).slice(0, 2)).toEqual(['job-llama-long', 'job-llama-failed']);
    expect(ids(await cli(['jobs', 'list', '--sort', 'duration', '--json']))).toEqual(['job-llama-long', 'job-llama-failed', 'job-qwen-cancelled', 'job-qwen-ok']);
    expect(ids(await cli(['jobs', 'list', '--sort', 'created', '--reverse', '--json']))).toEqual(['job-qwen-ok', 'job-llama-failed', 'job-llama-long', 'job-qwen-cancelled']);
  });

  it('the next-page hint repeats the order and filters, and following it gives the next job', async () => {
    const first = await cli(['jobs', 'list', '--sort', 'cost', '--search', 'llama3.1', '--limit', '1']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('job-llama-failed');
    const hint = /more: benchdesk (jobs list .*)$/m.exec(first.stdout)?.[1] ?? '';
    expect(hint).toMatch(/^jobs list --search "llama3\.1" --sort cost --limit 1 --cursor \S+$/);
    const args = hint.split(' ').map((a) => a.replace(/^"(.*)"$/, '$1'));
    const next = await cli([...args, '--json']);
    expect(ids(next)).toEqual(['job-llama-long']);
  });

  it('refuses an unknown sort key as a usage error naming the choices', async () => {
    const run = await cli(['jobs', 'list', '--sort', 'price']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Allowed choices are created, duration, cost/);
  });
});

describe('jobs list --search', () => {
  it('finds jobs by model, failure code and id; every word must occur', async () => {
    expect(ids(await cli(['jobs', 'list', '--search', 'qwen3:8b', '--json']))).toEqual(['job-qwen-cancelled', 'job-qwen-ok']);
    expect(ids(await cli(['jobs', 'list', '--search', 'no_offers', '--json']))).toEqual(['job-llama-failed']);
    expect(ids(await cli(['jobs', 'list', '--search', 'llama3.1 no_offers', '--json']))).toEqual(['job-llama-failed']);
    expect(ids(await cli(['jobs', 'list', '--search', 'qwen3 no_offers', '--json']))).toEqual([]);
    expect(ids(await cli(['jobs', 'list', '--search', 'cancelled', '--kind', 'agentic-agent', '--json']))).toEqual(['job-qwen-cancelled']);
  });

  it('shows the failure reason in the table and says when nothing matches', async () => {
    const table = await cli(['jobs', 'list', '--search', 'no_offers']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/job-llama-failed.*failed/);
    expect(table.stdout).toContain('No offer fits');
    const none = await cli(['jobs', 'list', '--search', 'mistral']);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('no jobs match "mistral"');
  });
});

describe('agents', () => {
  it('lists the registered agents, as a table and as the API JSON', async () => {
    const json = await cli(['agents', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const list = AgentListSchema.parse(stdoutJson(json));
    expect(list.agents.map((a) => a.name)).toEqual(expect.arrayContaining(['builtin', 'holmes', 'k8sgpt']));
    const table = await cli(['agents']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/agent.*source.*reached/);
    expect(table.stdout).toMatch(/builtin.*built in.*in-process/);
    expect(table.stdout).toMatch(/k8sgpt.*bundled driver.*stdio/);
  });

  it('names a driver registered in the environment, and reports an ignored entry on stderr', async () => {
    const run = await cli(['agents'], { BENCHDESK_DRIVER_MYAGENT: 'node /opt/my-agent.js', BENCHDESK_DRIVER_BUILTIN: 'node /opt/other.js' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/myagent.*registered in the environment.*stdio/);
    expect(run.stdout).not.toContain('cannot be replaced');
    expect(run.stderr).toMatch(/ignored driver entry: .*the built-in agent cannot be replaced; ignored/);
  });
});

describe('templates', () => {
  it('lists the recommended templates by name with the hash --marketplace-template takes', async () => {
    const run = await cli(['templates']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/template.*hash.*image.*recommended.*used.*disk/);
    expect(run.stdout).toMatch(new RegExp(`Ollama .*${OLLAMA_TEMPLATE_HASH}.*yes`));
    // The account's own template is not on the recommended list.
    expect(run.stdout).not.toContain(PRIVATE_TEMPLATE_HASH);
  });

  it('--search finds by name or hash; --json is the API JSON', async () => {
    const json = await cli(['templates', '--search', 'Ollama (team)', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const list = MarketplaceTemplateListSchema.parse(stdoutJson(json));
    expect(list.templates.map((t) => t.hash_id)).toContain(PRIVATE_TEMPLATE_HASH);
    const byHash = MarketplaceTemplateListSchema.parse(stdoutJson(await cli(['templates', '--search', OLLAMA_TEMPLATE_HASH, '--json'])));
    expect(byHash.templates[0]?.name).toBe('Ollama');
    const none = await cli(['templates', '--search', 'no-such-template-anywhere']);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('no template matches "no-such-template-anywhere"');
  });

  it('without a marketplace key says why the list is empty, on stderr', async () => {
    const run = await cli(['templates'], { VAST_API_KEY: '' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('no recommended templates');
    expect(run.stderr).toMatch(/VAST_API_KEY|marketplace key/i);
  });
});
