import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServingBenchmarkResultSchema } from '../../shared';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { tempDir } from '../workflows/harness';
import { buildCliBundle, cliEnv, runCli, stdoutJson, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * `benchdesk run-serving-benchmark`, the built CLI in its own process, in-process mode, against the
 * fake Ollama's serving mode (and the fake Vast.ai for a rented machine).
 */

let cliPath: string;
let cleanupCli: () => Promise<void>;
let ollama: FakeOllama;
let vast: FakeVast;
let dataDir: string;

beforeAll(async () => {
  const [built, o, v, dir] = await Promise.all([
    buildCliBundle(),
    startFakeOllama({ registry: [{ name: 'qwen2.5:7b' }], knobs: { serving: { firstTokenMs: 20, tokenIntervalMs: 2 } } }),
    startFakeVast({ knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } }),
    tempDir('benchdesk-cli-serving-'),
  ]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [ollama, vast, dataDir] = [o, v, dir];
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
}, 60_000);

afterAll(async () => {
  await Promise.all([ollama?.close(), vast?.close(), cleanupCli?.(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

const cli = (args: readonly string[]): Promise<CliRun> =>
  runCli(cliPath, args, cliEnv({ BENCHDESK_DATA_DIR: dataDir, MARKETPLACE_API_URL: vast.url, VAST_API_KEY: FAKE_VAST_KEY, BENCHDESK_MARKETPLACE_PACING: '0' }), 60_000);
const small = ['--concurrency', '1,2', '--requests', '4', '--output-tokens', '8', '--prompt-tokens', '32', '--warmup', '0'];

describe('benchdesk run-serving-benchmark', () => {
  it('--help lists the options and examples', async () => {
    const run = await cli(['run-serving-benchmark', '--help']);
    expect(run.code).toBe(0);
    for (const option of ['--concurrency <levels>', '--requests <n>', '--prompt-tokens <n>', '--output-tokens <n>', '--warmup <n>', '--marketplace-max-dph', '--max-cost', 'Examples:']) {
      expect(run.stdout).toContain(option);
    }
  });

  it('--json prints the result record only; progress goes to stderr, a line per finished level', async () => {
    const run = await cli(['run-serving-benchmark', '--local', '--backend-url', ollama.url, '-m', 'llama3.1:8b', ...small, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = ServingBenchmarkResultSchema.strict().parse(stdoutJson(run));
    expect(result.levels.map((l) => [l.concurrency, l.requests, l.output_tokens])).toEqual([[1, 4, 32], [2, 4, 32]]);
    expect(result.instance).toBeNull();
    const levelLines = run.stderr.split('\n').filter((l) => / serving\.level ok /.test(l));
    expect(levelLines).toHaveLength(2);
    expect(levelLines[0]).toMatch(/concurrency 1: [\d.]+ output tok\/s, TTFT p50 [\d.]+ ms/);
  });

  it('prints a table of the levels for a person', async () => {
    const run = await cli(['run-serving-benchmark', '--local', '--backend-url', ollama.url, '-m', 'llama3.1:8b', ...small]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Serving llama3\.1:8b on http:\/\/127\.0\.0\.1:\d+/);
    for (const head of ['concurrency', 'output tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p50']) expect(run.stdout).toContain(head);
    expect(run.stdout).toMatch(/best throughput at concurrency [12]/);
    expect(run.stdout).toContain('no machine rented (existing llmserver): no price per token');
  });

  it('on a rented machine: one machine, $ per million tokens per level, released', async () => {
    const asksBefore = vast.callsTo('asks').length;
    const run = await cli(['run-serving-benchmark', '--local', '--marketplace', '--marketplace-template', OLLAMA_TEMPLATE_HASH, '--marketplace-max-dph', '0.5', '-m', 'qwen2.5:7b', ...small, '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = ServingBenchmarkResultSchema.parse(stdoutJson(run));
    expect(vast.callsTo('asks').length - asksBefore).toBe(1);
    expect(result.instance?.released).toBe(true);
    expect(vast.state.instances.get(result.instance?.id ?? -1)?.destroyed).toBe(true);
    for (const level of result.levels) expect(level.usd_per_million_output_tokens).toBeGreaterThan(0);
    expect(result.best.by_cost).not.toBeNull();
  });

  it.each([
    [['--concurrency', '0,2'], /--concurrency.*whole numbers ≥ 1/],
    [['--concurrency', 'four'], /--concurrency.*whole numbers ≥ 1/],
    [['--concurrency', '4,8', '--requests', '4'], /--requests 4 is below the largest --concurrency level 8/],
    [['--output-tokens', '0'], /--output-tokens.*≥ 1/],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const run = await cli(['run-serving-benchmark', '--local', '--backend-url', ollama.url, '-m', 'llama3.1:8b', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('a level listed twice, refused by the API, is named by its option (exit 2)', async () => {
    const run = await cli(['run-serving-benchmark', '--local', '--backend-url', ollama.url, '-m', 'llama3.1:8b', '--concurrency', '2,2']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--concurrency lists level 2 twice');
  });

  it('needs a backend or the marketplace (exit 2)', async () => {
    const run = await cli(['run-serving-benchmark', '--local', '-m', 'llama3.1:8b']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/give --backend-url <url> .* or --marketplace/);
  });
});
