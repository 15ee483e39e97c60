import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelJobResponseSchema,
  CatalogResponseSchema,
  CostEstimationResponseSchema,
  JobAcceptedSchema,
  JobEventsResponseSchema,
  JobListResponseSchema,
  JobRecordSchema,
  LlmModelsResponseSchema,
  MarketplaceInstanceListSchema,
  ProblemSchema,
  ReleaseInstanceResponseSchema,
} from '../../shared';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { mustK8s, mustVast, startHarness, tempDir, type Harness } from '../workflows/harness';
import { ANSWER, PROGRESS_LINE, agentScript, buildCliBundle, cliEnv, closedPort, runCli, spawnCli, stdoutJson, waitFor, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * The CLI against the running app: a real headless server (startBenchdesk, listening on a port,
 * token auth on) with the fake Vast.ai, Ollama and Kubernetes; every command is the real bundle in
 * a child process talking HTTP.
 */

const TOKEN = 'cli-test-token-0123456789';
let h: Harness;
let cliPath: string;
let cleanupCli: () => Promise<void>;
let apiUrl: string;
let emptyDataDir: string;

beforeAll(async () => {
  const [built, harness, dir] = await Promise.all([
    buildCliBundle(),
    startHarness({
      start: true,
      vast: { knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } },
      k8s: true,
      ollama: { models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': agentScript() } },
      env: { SERVICE_API_TOKENS: `default:${TOKEN}`, SERVICE_API_AUTH_DISABLED: '0' },
    }),
    tempDir('benchdesk-cli-api-'),
  ]);
  ({ cliPath, cleanup: cleanupCli } = built);
  h = harness;
  emptyDataDir = dir;
  const address = h.bd.app.server.address() as AddressInfo;
  apiUrl = `http://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await cleanupCli?.();
});

/** The CLI as a script would run it: the app's URL and token, a data dir without a token file. */
function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCli(cliPath, [...args, '--api-url', apiUrl], cliEnv({ BENCHDESK_DATA_DIR: emptyDataDir, BENCHDESK_TOKEN: TOKEN, KUBECONFIG: mustK8s(h).kubeconfigPath, ...env }));
}

const marketplaceArgs = (): string[] => ['--marketplace', '--marketplace-template', OLLAMA_TEMPLATE_HASH, '--marketplace-max-dph', '0.5'];

describe('benchdesk against the running app', () => {
  it('marketplace-list-models: the catalog as a table with VRAM and disk, and as the API JSON', async () => {
    const table = await cli(['marketplace-list-models']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/model.*VRAM.*disk/);
    expect(table.stdout).toMatch(/llama3\.1:8b.*8\.0 GB.*\d+ GB/);
    expect(table.stderr).toContain(`using the app's API at ${apiUrl}`);

    const json = await cli(['marketplace-list-models', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const catalog = CatalogResponseSchema.parse(stdoutJson(json));
    expect(catalog.models.map((m) => m.name)).toContain('llama3.1:8b');
    // The mode line is on stderr only.
    expect(json.stdout).not.toContain('API at');
  });

  it("llmserver-list-models marks the running model and its VRAM; --json is the API's answer", async () => {
    // Load one model on the fake llmserver so it shows as running.
    const res = await fetch(`${h.ollama.url}/api/generate`, { method: 'POST', body: JSON.stringify({ model: 'qwen2.5:7b', keep_alive: '10m' }) });
    expect(res.status).toBe(200);
    await res.text();

    const json = await cli(['llmserver-list-models', '--backend-url', h.ollama.url, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const models = LlmModelsResponseSchema.parse(stdoutJson(json));
    expect(models.running_models.map((m) => m.name)).toEqual(['qwen2.5:7b']);

    const table = await cli(['llmserver-list-models', '--backend-url', h.ollama.url]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/● qwen2\.5:7b .*4\.7 GB.*running.*\d+(\.\d)? GB/);
    expect(table.stdout).toMatch(/ {2}llama3\.1:8b/);
  });

  it('estimate sends --marketplace-reliability as a fraction (95 → 0.95)', async () => {
    const vast = mustVast(h);
    const before = vast.callsTo('bundles').length;
    const run = await cli(['estimate', '--marketplace', '--marketplace-max-dph', '0.5', '--marketplace-reliability', '95', '-m', 'llama3.1:8b', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const estimate = CostEstimationResponseSchema.parse(stdoutJson(run));
    expect(estimate.basis).toBe('live_offers');
    const search = vast.callsTo('bundles').slice(before);
    expect(search.length).toBeGreaterThan(0);
    expect((search[0]?.body as { reliability: { gte: number } }).reliability.gte).toBe(0.95);

    const text = await cli(['estimate', '--marketplace', '--marketplace-max-dph', '0.5', '-m', 'llama3.1:8b']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/projected cost +\$\d+\.\d\d for 1 h/);
    expect(text.stdout).toMatch(/cheapest +#\d+/);
  });

  it('run-agentic-agent prints the answer with tokens/s, steps and tool calls, and progress lines on stderr', async () => {
    const run = await cli(['run-agentic-agent', '-q', 'Why is the shop down?', '-m', 'llama3.1:8b', '--backend-url', h.ollama.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(ANSWER);
    expect(run.stdout).toMatch(/agent builtin · model llama3\.1:8b · 3 steps · 2 tool calls · [\d.]+ tokens\/s/);
    // Not a TTY: one plain timestamped line per event, ending with the terminal event.
    const lines = run.stderr.split('\n').filter((l) => PROGRESS_LINE.test(l));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.at(-1)).toMatch(/\[succeeded\].*job\.succeeded/);
    expect(run.stderr).toMatch(/\[analysis\].*agent\./);
  });

  it('run-benchmark on a rented machine: progress with phases and cost, --json is the final JobRecord, the machine is released', async () => {
    const run = await cli(['run-benchmark', ...marketplaceArgs(), '--marketplace-reliability', '97', '-m', 'llama3.1:8b', '-q', 'Why is the shop down?', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const job = JobRecordSchema.parse(stdoutJson(run));
    expect(job.kind).toBe('benchmark');
    expect(job.status).toBe('succeeded');
    if (job.kind !== 'benchmark' || !job.result) throw new Error('expected a benchmark result');
    expect(job.request.reliability).toBe(0.97);
    expect(job.result.answer).toBe(ANSWER);
    expect(job.result.instance?.released).toBe(true);
    // The estimate came first (stderr), then phases with the running cost of the rented machine.
    expect(run.stderr).toMatch(/estimate \(live offers, 1 h\)/);
    const phases = [...run.stderr.matchAll(new RegExp(PROGRESS_LINE.source, 'gm'))].map((m) => m[1]);
    for (const phase of ['provision', 'warmup', 'analysis', 'teardown']) expect(phases).toContain(phase);
    expect(run.stderr).toMatch(/\[teardown\] {2}\d\d:\d\d {2}\$\d+\.\d{4} @ \$\d+\.\d{3}\/h {2}marketplace\.instance\.destroy/);
  });

  it('refuses a rent above BENCHDESK_SPEND_CONFIRM_USD without --yes when not interactive (exit 2, nothing rented)', async () => {
    const vast = mustVast(h);
    const rentsBefore = vast.callsTo('asks').length;
    const jobsBefore = (await h.bd.client().listJobs({ limit: 200 })).jobs.length;
    const run = await cli(['run-benchmark', ...marketplaceArgs(), '-m', 'llama3.1:8b', '-q', 'Why?'], { BENCHDESK_SPEND_CONFIRM_USD: '0.01' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/estimate \(/);
    expect(run.stderr).toMatch(/above the \$0\.01 confirmation threshold.*not a terminal, so nothing was rented.*--yes/s);
    expect(vast.callsTo('asks').length).toBe(rentsBefore);
    expect((await h.bd.client().listJobs({ limit: 200 })).jobs.length).toBe(jobsBefore);
  });

  it('a failing job exits 1 and names the cause', async () => {
    const port = await closedPort();
    const run = await cli(['run-agentic-agent', '-q', 'Why?', '-m', 'llama3.1:8b', '--backend-url', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/job \S+ failed( \[\w+\])?: .+/);
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
  });

  it("a request the API rejects (422) is a usage error naming the CLI's option", async () => {
    const run = await cli(['run-benchmark', '--marketplace', '--marketplace-max-dph', '0.5', '-m', 'llama3.1:8b', '-q', 'Why?', '--yes', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--marketplace-template is required to rent a GPU/);
    // Option names, never zod's wording or the API's field names.
    expect(run.stderr).not.toMatch(/Too small|expected (number|string)|template_hash|>=/);
    expect(ProblemSchema.parse(stdoutJson(run)).status).toBe(422);
  });

  it('a value out of range is said with the option and its unit (a percentage), not in zod wording', async () => {
    const run = await cli(['estimate', '--marketplace', '--marketplace-min-dph', '2', '--marketplace-max-dph', '1', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--marketplace-max-dph must be at least --marketplace-min-dph');
    expect(run.stderr).not.toMatch(/Too small|Too big|>=|max_dph/);
  });

  it('--no-wait prints the job id; jobs list/show/events/watch/cancel give the API JSON', async () => {
    const submitted = await cli(['run-agentic-agent', '-q', 'Why is the shop down?', '-m', 'llama3.1:8b', '--backend-url', h.ollama.url, '--no-wait', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const { job_id: jobId } = JobAcceptedSchema.parse(stdoutJson(submitted));

    const watched = await cli(['jobs', 'watch', jobId, '--json']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(JobRecordSchema.parse(stdoutJson(watched)).status).toBe('succeeded');

    const list = await cli(['jobs', 'list', '--kind', 'agentic-agent', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JobListResponseSchema.parse(stdoutJson(list)).jobs.map((j) => j.job_id)).toContain(jobId);
    const table = await cli(['jobs', 'list', '--limit', '5']);
    expect(table.stdout).toMatch(/job.*kind.*status.*age.*duration.*cost/);
    expect(table.stdout).toContain(jobId);

    const shown = await cli(['jobs', 'show', jobId, '--json']);
    expect(JobRecordSchema.parse(stdoutJson(shown)).job_id).toBe(jobId);
    const shownText = await cli(['jobs', 'show', jobId]);
    expect(shownText.stdout).toContain(ANSWER);

    const events = await cli(['jobs', 'events', jobId, '--json']);
    const parsed = JobEventsResponseSchema.parse(stdoutJson(events));
    expect(parsed.events.at(-1)?.event).toBe('job.succeeded');

    // A finished job cannot be cancelled: the API's 409, as a failure naming why.
    const late = await cli(['jobs', 'cancel', jobId]);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/already succeeded \(409 job_not_cancellable\)/);

    const missing = await cli(['jobs', 'show', 'no-such-job']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/404/);
  });

  it('jobs cancel stops a running job; jobs watch then exits 1 and says it was cancelled', async () => {
    // An llmserver that accepts connections and never answers: the job hangs in its warm-up.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    silent.on('connection', (s) => sockets.add(s));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const submitted = await cli(['run-agentic-agent', '-q', 'Why?', '-m', 'llama3.1:8b', '--backend-url', url, '--no-wait']);
      expect(submitted.code, submitted.stderr).toBe(0);
      const jobId = submitted.stdout.trim();
      await waitFor('the job to run', () => sockets.size > 0);

      const cancelled = await cli(['jobs', 'cancel', jobId, '--json']);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(['running', 'cancelled']).toContain(CancelJobResponseSchema.parse(stdoutJson(cancelled)).status);

      const watched = await cli(['jobs', 'watch', jobId]);
      expect(watched.code).toBe(1);
      expect(watched.stderr).toMatch(new RegExp(`job ${jobId} was cancelled.*no machine was rented`));
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('Ctrl-C leaves a job on the app running (exit 130, says how to follow it); with --cancel-on-interrupt it is cancelled', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    silent.on('connection', (s) => sockets.add(s));
    const env = cliEnv({ BENCHDESK_DATA_DIR: emptyDataDir, BENCHDESK_TOKEN: TOKEN, KUBECONFIG: mustK8s(h).kubeconfigPath });
    const args = (extra: string[]) => ['run-agentic-agent', '-q', 'Why?', '-m', 'llama3.1:8b', '--backend-url', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, '--api-url', apiUrl, ...extra];
    const interrupt = async (extra: string[]): Promise<{ run: CliRun; jobId: string }> => {
      const p = spawnCli(cliPath, args(extra), env);
      // The CLI is following the job (its progress shows the API's detection, backend_api auto), which hangs on the silent llmserver.
      await waitFor('the detection to start', () => /llmserver\.detect started/.test(p.stderr()));
      p.child.kill('SIGINT');
      const run = await p.done;
      return { run, jobId: /job (\S+) accepted/.exec(run.stderr)?.[1] ?? '' };
    };
    try {
      const kept = await interrupt([]);
      expect(kept.run.code).toBe(130);
      expect(kept.run.stderr).toContain(`interrupted: job ${kept.jobId} keeps running on the app. Follow it: benchdesk jobs watch ${kept.jobId}`);
      expect((await h.bd.client().getJob({ job_id: kept.jobId })).status).toBe('running');
      await h.bd.client().cancelJob({ job_id: kept.jobId });

      const cancelled = await interrupt(['--cancel-on-interrupt']);
      expect(cancelled.run.code).toBe(130);
      expect(cancelled.run.stderr).toMatch(new RegExp(`job ${cancelled.jobId} was cancelled; no machine was rented`));
      expect((await h.bd.client().getJob({ job_id: cancelled.jobId })).status).toBe('cancelled');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('instances lists the kept machine of an llm-instance job and releases it', async () => {
    const run = await cli(['run-llm-instance', ...marketplaceArgs(), '-m', 'llama3.1:8b', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const job = JobRecordSchema.parse(stdoutJson(run));
    if (job.kind !== 'llm-instance' || job.result?.mode !== 'marketplace') throw new Error(`expected a rented llm-instance, got ${job.status} ${job.error ?? ''}`);
    const id = job.result.contract_id;

    const list = await cli(['instances', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const entry = MarketplaceInstanceListSchema.parse(stdoutJson(list)).instances.find((i) => i.instance_id === id);
    expect(entry?.classification).toBe('kept');

    const released = await cli(['instances', 'release', String(id), '--json']);
    expect(released.code, released.stderr).toBe(0);
    expect(ReleaseInstanceResponseSchema.parse(stdoutJson(released))).toMatchObject({ instance_id: id, released: true });
    expect(mustVast(h).state.instances.get(id)?.destroyed).toBe(true);
  });

  it('says plainly when the API needs a token and none is given', async () => {
    const run = await cli(['jobs', 'list'], { BENCHDESK_TOKEN: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/needs a token: pass --token, set BENCHDESK_TOKEN/);
  });
});

describe('usage errors (exit 2, naming the mistake and the closest command)', () => {
  const usage = async (args: string[]): Promise<CliRun> => {
    const run = await runCli(cliPath, args, cliEnv({ BENCHDESK_DATA_DIR: emptyDataDir }));
    expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(2);
    expect(run.stdout).toBe('');
    return run;
  };

  it('an unknown command, also with --help, and an unknown subcommand', async () => {
    expect((await usage(['run-benchmrk', '--help'])).stderr).toMatch(/unknown command 'run-benchmrk'.*Did you mean 'run-benchmark'/);
    expect((await usage(['jobs', 'lst'])).stderr).toMatch(/unknown command 'lst' for 'benchdesk jobs'.*Did you mean 'list'/);
  });

  it('an unknown option names the closest real one', async () => {
    expect((await usage(['run-benchmark', '-q', 'x', '-m', 'y', '--modle', 'z'])).stderr).toMatch(/unknown option '--modle'[\s\S]*Did you mean --model/);
  });

  it('a reliability outside 0–100 percent; neither a backend nor --marketplace', async () => {
    expect((await usage(['estimate', '--marketplace', '--marketplace-reliability', '150'])).stderr).toMatch(/--marketplace-reliability.*must be a percentage from 0 to 100/);
    expect((await usage(['run-benchmark', '-q', 'x', '-m', 'y'])).stderr).toMatch(/give --backend-url <url> .* or --marketplace/);
  });
});
