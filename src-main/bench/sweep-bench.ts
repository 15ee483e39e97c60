import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { createBenchdesk } from '../composition/start';
import type { SweepJobKind, SweepJobRunner } from '../sweeps/ports';
import { ROOT } from './processes';
import type { Report } from './report';

/**
 * The sweep engine's own CPU per cell (design §10: ≤ 20 ms beyond its jobs), against the fake
 * Vast.ai and Ollama running in a child process (their CPU is not ours). Everything the engine
 * does is measured: planning from the offer search, renting one machine per GPU through the
 * marketplace provisioning (rent, wait for running, wait for Ollama), checking each model on the
 * machine, the durable record writes (fsync), the events on the feed, the releases. The jobs
 * themselves are excluded: a stand-in runner answers each one at once with a result.
 */

const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'qwen2.5:14b', 'qwen3:8b', 'qwen3:14b', 'mistral:7b', 'mistral-nemo:12b', 'gemma3:4b', 'gemma3:12b', 'llama3.2:3b'];
const GPUS = ['RTX 3090', 'RTX 4090', 'RTX A6000', 'L40S'];

const FAKES_RUNNER = `
import { startFakeOllama } from './test/fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast } from './test/fakes/vast';
const models = ${JSON.stringify(MODELS)}.map((name) => ({ name, size: 4_000_000_000, family: 'llama', parameter_size: '8B', quantization_level: 'Q4_K_M' }));
const ollama = await startFakeOllama({ models });
// Offers come back as they are rented: one fake serves several sweeps.
const vast = await startFakeVast({ knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } });
vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
const offers = [...vast.state.offers.values()].map((o) => ({ ...o }));
setInterval(() => { for (const o of offers) if (!vast.state.offers.has(o.id)) vast.state.offers.set(o.id, { ...o }); }, 20).unref();
console.log(JSON.stringify({ vast: vast.url, key: FAKE_VAST_KEY, template: OLLAMA_TEMPLATE_HASH }));
process.on('SIGTERM', () => void Promise.all([ollama.close(), vast.close()]).finally(() => process.exit(0)));
`;

type FakesAddress = { vast: string; key: string; template: string };

async function buildFakesRunner(): Promise<string> {
  const out = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-bench', 'sweep-fakes-runner.mjs');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await build({ stdin: { contents: FAKES_RUNNER, resolveDir: ROOT, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'error' });
  return out;
}

/** Jobs that end at once with a result of the right shape: what is left is the engine's own work. */
function instantRunner(): SweepJobRunner {
  let n = 0;
  const results = new Map<string, unknown>();
  return {
    supports: () => true,
    async submit(_tenant, kind: SweepJobKind, request) {
      const id = `bench-${++n}`;
      const acc = (String(request.model).length % 10) / 10;
      results.set(
        id,
        kind === 'suite'
          ? { summary: { accuracy: acc, passed: Math.round(acc * 10), total: 10 }, scenarios: [] }
          : { levels: [{ concurrency: 4, output_tokens_per_s: 40 + n, ttft_ms: { p50: 90 } }] },
      );
      return id;
    },
    async wait(jobId) {
      return { status: 'succeeded', result: results.get(jobId), error: null, error_code: null };
    },
    async findTagged() {
      return undefined;
    },
    async cancel() {},
  };
}

export async function runSweepBench(report: Report, options: { root: string; models: number }): Promise<void> {
  const fakes = spawn(process.execPath, [await buildFakesRunner()], { stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = path.join(options.root, 'sweeps');
  await fsp.mkdir(dir, { recursive: true });
  try {
    const addr = await new Promise<FakesAddress>((resolve, reject) => {
      let out = '';
      fakes.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as FakesAddress);
      });
      fakes.once('exit', (code) => reject(new Error(`the fakes exited (${code})`)));
    });
    const bd = await createBenchdesk({
      dataDir: dir,
      env: { SERVICE_API_AUTH_DISABLED: '1', MARKETPLACE_API_URL: addr.vast, VAST_API_KEY: addr.key, BENCHDESK_MARKETPLACE_PACING: '0', PATH: process.env.PATH, HOME: process.env.HOME },
      logger: false,
      port: 0,
      workflowTuning: { pollIntervalMs: 5, waitTimeoutMs: 10_000, releaseRetryDelayMs: 5 },
      sweepTuning: { runner: instantRunner() },
    });
    try {
      const run = async (models: readonly string[], gpus: readonly string[]) => {
        const sweep = await bd.sweeps.create('default', {
          name: 'bench',
          models,
          gpus,
          suite_id: 'starter',
          serving: { concurrency: [4], requests_per_level: 4 },
          template_hash: addr.template,
          max_dph: 5,
          max_total_cost_usd: 100,
          machines_at_once: gpus.length,
        });
        await bd.sweeps.settled(sweep.sweep_id);
        return bd.sweeps.get('default', sweep.sweep_id);
      };
      // Warm-up, not measured: loads the code paths once.
      await run(MODELS.slice(0, 1), GPUS.slice(0, 1));
      const models = MODELS.slice(0, options.models);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const sweep = await run(models, GPUS);
      const cpu = process.cpuUsage(cpu0);
      const wallS = (performance.now() - t0) / 1000;
      const cells = sweep.cells.length;
      const scored = sweep.cells.filter((c) => c.status === 'succeeded').length;
      const cpuMsPerCell = (cpu.user + cpu.system) / 1000 / cells;
      const rented = sweep.machines.filter((m) => m.instance_id !== undefined).length;
      report.add({
        section: 'sweeps',
        scenario: `${models.length} models × ${GPUS.length} GPUs, engine CPU per cell (jobs excluded)`,
        value: Math.round(cpuMsPerCell * 100) / 100,
        unit: 'ms',
        target: '≤ 20 ms',
        ok: cpuMsPerCell <= 20,
        note: `${scored}/${cells} cells scored, ${wallS.toFixed(1)} s wall; planning, renting, checking models, durable record writes, feed events and releases against the fakes`,
      });
      report.add({ section: 'sweeps', scenario: 'machines rented per GPU', value: rented / GPUS.length, unit: '', target: '= 1', ok: rented === GPUS.length });
    } finally {
      await bd.close();
    }
  } finally {
    fakes.kill('SIGTERM');
  }
}
