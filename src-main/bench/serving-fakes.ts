import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { percentile } from '../serving/stats';
import { ROOT } from './processes';

/**
 * The serving bench's backends of known timing: the fake Ollama and the fake vLLM (test/fakes),
 * in a child process of their own so the clients measured here have this process to themselves
 * (its CPU for the bench's timings, its memory for the robustness tests' RSS).
 */

const RUNNER = `
import { createInterface } from 'node:readline';
import { startFakeOllama } from './test/fakes/ollama';
import { startFakeOpenAi } from './test/fakes/openai';
const ollama = await startFakeOllama({ knobs: { serving: { firstTokenMs: 1, tokenIntervalMs: 1 } } });
const openai = await startFakeOpenAi({ models: [{ id: 'bench-model', max_model_len: 32768 }], knobs: { serving: { firstTokenMs: 1, tokenIntervalMs: 1 } } });
const fakes = { ollama, openai };
console.log(JSON.stringify({ ollama: ollama.url, openai: openai.url }));
// One line per command: {"api", "knobs"} → "ok"; {"api", "lateness": true} → the first tokens' lateness against their
// schedule since the last call (ms, sorted), then forgotten.
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  const fake = fakes[command.api];
  if (command.lateness) {
    console.log(JSON.stringify(fake.state.servingLateness.splice(0).sort((a, b) => a - b)));
    continue;
  }
  fake.setKnobs(command.knobs);
  console.log('ok');
}
await Promise.all([ollama.close(), openai.close()]);
process.exit(0);
`;

async function buildRunner(): Promise<string> {
  const out = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-bench', 'serving-fakes.mjs');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await build({ stdin: { contents: RUNNER, resolveDir: ROOT, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'error' });
  return out;
}

export type BenchApi = 'ollama' | 'openai';
export type Timing = { firstTokenMs: number; tokenIntervalMs: number };

export type ServingFakes = {
  urls: Record<BenchApi, string>;
  setTiming(api: BenchApi, timing: Timing): Promise<void>;
  /** Any of the fake's knobs (test/fakes: FakeOllamaKnobs, FakeOpenAiKnobs). */
  setKnobs(api: BenchApi, knobs: Record<string, unknown>): Promise<void>;
  /** p50 of how late the fake wrote first tokens since the last call (its own timers and CPU), ms. */
  latenessP50(api: BenchApi): Promise<number | null>;
  stop(): void;
};

export async function startServingFakes(): Promise<ServingFakes> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [await buildRunner()], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done) throw new Error('the fake servers exited');
    return r.value;
  };
  const urls = JSON.parse(await next()) as Record<BenchApi, string>;
  const setKnobs = async (api: BenchApi, knobs: Record<string, unknown>): Promise<void> => {
    child.stdin.write(`${JSON.stringify({ api, knobs })}\n`);
    if ((await next()) !== 'ok') throw new Error(`the fake ${api} server did not take the knobs`);
  };
  return {
    urls,
    setKnobs,
    setTiming: (api, timing) => setKnobs(api, { serving: timing }),
    async latenessP50(api) {
      child.stdin.write(`${JSON.stringify({ api, lateness: true })}\n`);
      const sorted = JSON.parse(await next()) as number[];
      return sorted.length > 0 ? percentile(sorted, 50) : null;
    },
    stop: () => void child.kill('SIGTERM'),
  };
}
