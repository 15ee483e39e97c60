import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogResponseSchema, JobListResponseSchema, JobRecordSchema, MarketplaceInstanceListSchema } from '../../shared';
import { createBenchdesk } from '../../src-main/composition/start';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { tempDir } from '../workflows/harness';
import { ANSWER, PROGRESS_LINE, agentScript, buildCliBundle, cliEnv, closedPort, runCli, spawnCli, stdoutJson, waitFor, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * The CLI without a running app: the engine in the CLI's own process (`--local`, or because
 * nothing answers at the API URL) on a data dir, against the fake Vast.ai, Ollama and Kubernetes.
 */

let cliPath: string;
let cleanupCli: () => Promise<void>;
let vast: FakeVast;
let ollama: FakeOllama;
let k8s: FakeKubernetes;
let dataDir: string;
let deadApi: string;

beforeAll(async () => {
  const [built, o, v, k, dir, port] = await Promise.all([
    buildCliBundle(),
    startFakeOllama({ models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': agentScript() } }),
    startFakeVast({ knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } }),
    startFakeKubernetes(),
    tempDir('benchdesk-cli-local-'),
    closedPort(),
  ]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [ollama, vast, k8s, dataDir] = [o, v, k, dir];
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
  deadApi = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  await Promise.all([ollama?.close(), vast?.close(), k8s?.close(), cleanupCli?.(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cliEnv({ BENCHDESK_DATA_DIR: dataDir, MARKETPLACE_API_URL: vast.url, VAST_API_KEY: FAKE_VAST_KEY, BENCHDESK_MARKETPLACE_PACING: '0', KUBECONFIG: k8s.kubeconfigPath, ...extra });
}
const cli = (args: readonly string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> => runCli(cliPath, args, env(extra));

describe('benchdesk in-process', () => {
  it('--local lists the catalog and the rented machines, saying on stderr where it ran', async () => {
    const catalog = await cli(['marketplace-list-models', '--local', '--json']);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(CatalogResponseSchema.parse(stdoutJson(catalog)).models.length).toBeGreaterThan(0);
    expect(catalog.stderr).toContain(`running in-process (--local), data dir ${dataDir}`);

    const instances = await cli(['instances', '--local', '--json']);
    expect(instances.code, instances.stderr).toBe(0);
    expect(MarketplaceInstanceListSchema.parse(stdoutJson(instances)).instances).toEqual([]);
  });

  it('runs the job in-process when nothing answers at the API URL', async () => {
    const run = await cli(['run-agentic-agent', '-q', 'Why is the shop down?', '-m', 'llama3.1:8b', '--backend-url', ollama.url, '--api-url', deadApi, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`no API answers at ${deadApi}; running in-process`));
    const job = JobRecordSchema.parse(stdoutJson(run));
    expect(job.status).toBe('succeeded');
    expect(job.kind === 'agentic-agent' && job.result?.answer).toBe(ANSWER);

    const list = await cli(['jobs', 'list', '--local', '--json']);
    expect(JobListResponseSchema.parse(stdoutJson(list)).jobs.map((j) => j.job_id)).toContain(job.job_id);
  });

  it('--no-wait is refused in-process (exit 2): the job would end with the command', async () => {
    const run = await cli(['run-agentic-agent', '-q', 'Why?', '-m', 'llama3.1:8b', '--backend-url', ollama.url, '--local', '--no-wait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--no-wait needs the running app/);
  });

  it('Ctrl-C mid-benchmark cancels the job, releases the rented machine, and exits 130', async () => {
    // The model takes "forever" to answer: the benchmark sits in its analysis phase.
    ollama.setKnobs({ firstByteDelayMs: 60_000 });
    try {
      const destroysBefore = vast.callsTo('destroy').length;
      const p = spawnCli(
        cliPath,
        ['run-benchmark', '--marketplace', '--marketplace-template', OLLAMA_TEMPLATE_HASH, '--marketplace-max-dph', '0.5', '-m', 'llama3.1:8b', '-q', 'Why is the shop down?', '--yes', '--local'],
        env(),
      );
      await waitFor('the analysis phase', () => p.stderr().split('\n').some((l) => PROGRESS_LINE.exec(l)?.[1] === 'analysis'));
      expect(vast.callsTo('destroy').length).toBe(destroysBefore);
      p.child.kill('SIGINT');
      const run = await p.done;
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toMatch(/interrupted: cancelling job \S+, which runs in this process/);
      expect(run.stderr).toMatch(/job \S+ was cancelled; its machine \(instance \d+\) was released/);
      const destroys = vast.callsTo('destroy').slice(destroysBefore);
      expect(destroys.length).toBeGreaterThan(0);
      const instanceId = Number(/instance (\d+)\) was released/.exec(run.stderr)?.[1]);
      expect(vast.state.instances.get(instanceId)?.destroyed).toBe(true);

      const jobId = /job (\S+) accepted/.exec(run.stderr)?.[1] ?? '';
      const shown = await cli(['jobs', 'show', jobId, '--local', '--json']);
      expect(JobRecordSchema.parse(stdoutJson(shown)).status).toBe('cancelled');
    } finally {
      ollama.setKnobs({ firstByteDelayMs: 0 });
    }
  });

  it('says plainly when the app holds the data dir but its API does not answer (exit 1)', async () => {
    const held = await tempDir('benchdesk-cli-locked-');
    // The app: it holds the data-dir lock, but does not listen where the CLI looks.
    const bd = await createBenchdesk({ dataDir: held, logger: false, env: { SERVICE_API_AUTH_DISABLED: '1' } });
    try {
      const fallback = await cli(['jobs', 'list', '--api-url', deadApi], { BENCHDESK_DATA_DIR: held });
      expect(fallback.code).toBe(1);
      expect(fallback.stderr).toMatch(new RegExp(`the benchdesk app \\(pid ${process.pid}\\) holds the data dir ${held}, but its API at ${deadApi} does not answer`));

      const local = await cli(['jobs', 'list', '--local'], { BENCHDESK_DATA_DIR: held });
      expect(local.code).toBe(1);
      expect(local.stderr).toMatch(/--local: the data dir .* is in use by another benchdesk process .* drop --local/);
    } finally {
      await bd.close();
      await rm(held, { recursive: true, force: true });
    }
  });
});
