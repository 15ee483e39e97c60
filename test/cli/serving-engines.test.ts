import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServingBenchmarkResultSchema } from '../../shared';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai';
import { killChildren } from '../helpers/children';
import { tempDir } from '../workflows/harness';
import { buildCliBundle, cliEnv, runCli, stdoutJson, type CliRun } from './cli-harness';

/**
 * `benchdesk run-serving-benchmark` against an OpenAI-compatible server (the fake vLLM), the built
 * CLI in its own process, in-process mode: the backend API flag, a request-rate level, goodput
 * against SLOs, the network RTT and warnings in the table, the key from the environment, and the
 * per-request export.
 */

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const KEY = 'sk-cli-serving-9090';
let cliPath: string;
let cleanupCli: () => Promise<void>;
let vllm: FakeOpenAi;
let dataDir: string;

beforeAll(async () => {
  const [built, fake, dir] = await Promise.all([buildCliBundle(), startFakeOpenAi({ knobs: { serving: { firstTokenMs: 10, tokenIntervalMs: 1 } } }), tempDir('benchdesk-cli-engines-')]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [vllm, dataDir] = [fake, dir];
}, 60_000);
afterAll(async () => {
  await killChildren();
  await Promise.all([vllm?.close(), cleanupCli?.(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> => runCli(cliPath, args, cliEnv({ BENCHDESK_DATA_DIR: dataDir, ...env }), 60_000);
const base = () => ['run-serving-benchmark', '--local', '--backend-url', vllm.url, '-m', MODEL, '--output-tokens', '8', '--prompt-tokens', '32', '--warmup', '0'];

describe('benchdesk run-serving-benchmark on an OpenAI-compatible server', () => {
  it('--help lists the engine, rate, SLO, dataset and export options, with examples', async () => {
    const run = await cli(['run-serving-benchmark', '--help']);
    expect(run.code).toBe(0);
    for (const option of ['--backend-api <api>', '--request-rate <rates>', '--burstiness <shape>', '--max-concurrency <n>', '--slo-ttft-ms <ms>', '--slo-tpot-ms <ms>', '--dataset <kind>', '--export-requests <file>', 'BENCHDESK_BACKEND_API_KEY', 'Examples:']) {
      expect(run.stdout).toContain(option);
    }
  });

  it('a request-rate level with goodput, the network RTT in the table, the records exported as CSV', async () => {
    const file = path.join(dataDir, 'requests.csv');
    const run = await cli([...base(), '--backend-api', 'openai', '--request-rate', '20', '--requests', '10', '--slo-ttft-ms', '10000', '--export-requests', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\(OpenAI-compatible 0\.11\.0\)/);
    expect(run.stdout).toMatch(/network round trip [\d.]+ ms \(part of every TTFT\)/);
    expect(run.stdout).toMatch(/20 req\/s/);
    expect(run.stdout).toMatch(/highest throughput meeting TTFT ≤ 10000 ms for 99% of requests: 20 req\/s/);
    const csv = (await readFile(file, 'utf8')).trim().split('\n');
    expect(csv[0]).toBe('level,started_at_ms,ttft_ms,e2e_ms,output_tokens,itl_count,finish_reason,error');
    expect(csv).toHaveLength(11);
    expect(run.stderr).toContain(`10 request records written to ${file} (csv)`);
  });

  it('--json: the result with backend_api, network_rtt_ms and the manifest', async () => {
    const run = await cli([...base(), '--concurrency', '2', '--requests', '4', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = ServingBenchmarkResultSchema.parse(stdoutJson(run));
    expect(result).toMatchObject({ backend_api: 'openai', manifest: { backend_api: 'openai', model: MODEL } });
    expect(result.network_rtt_ms).toBeGreaterThan(0);
  });

  it('a server with --api-key: refused without BENCHDESK_BACKEND_API_KEY (exit 1), measured with it; the key is never printed', async () => {
    vllm.setKnobs({ apiKey: KEY });
    try {
      const refused = await cli([...base(), '--concurrency', '1', '--requests', '2']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/wants an API key; set backend_api_key \(CLI: BENCHDESK_BACKEND_API_KEY\)/);
      const ok = await cli([...base(), '--concurrency', '1', '--requests', '2'], { BENCHDESK_BACKEND_API_KEY: KEY });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout + ok.stderr).not.toContain(KEY);
    } finally {
      vllm.setKnobs({ apiKey: null });
    }
  });

  it.each([
    [['--concurrency', '2', '--request-rate', '4'], /give --concurrency or --request-rate, not both/],
    [['--burstiness', '0.5'], /--burstiness and --max-concurrency go with --request-rate/],
    [['--request-rate', 'fast'], /--request-rate.*requests per second \(> 0\) or inf/],
    [['--dataset', 'notes.txt'], /--dataset.*random, shipped, or a \.json/],
    [['--requests', '4', '--duration', '10'], /give --requests or --duration, not both/],
    [['--backend-api', 'grpc'], /--backend-api.*Allowed choices are ollama, openai, auto/],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const run = await cli([...base(), ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
