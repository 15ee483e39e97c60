import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import type { ServingLevel } from '../../shared';
import { LlmServerClient } from '../llm/llmserver-client';
import { runServingLoad } from '../serving/generator';
import { percentile } from '../serving/stats';
import { ROOT } from './processes';
import type { Report } from './report';

/**
 * The serving benchmark's accuracy and ceiling (design §10, §13), against the fake Ollama's
 * serving mode (first token after F ms, then one every G ms, on an absolute schedule) running in
 * a child process, so the generator measured here has this process to itself.
 *
 * - Accuracy: at concurrency 1, 8 and 64, the error of the measured TTFT, TPOT and ITL p50 against
 *   F, G and G, and of the output tokens/s against the closed loop's ideal c·n / (F + (n − 1)·G).
 * - Ceiling: long streams at a rising offered rate (c streams × 1000/G tokens/s each); the
 *   generator sustains a rate while it receives ≥ 95% of what is offered. The highest sustained
 *   rate is the figure; the rate where it falls behind and the generator's CPU are printed beside.
 * Bounded: about 20 s on an idle machine, never more than 60 s.
 */

const MODEL = 'llama3.1:8b';
const F = 100;
const G = 20;
const N = 32;

const RUNNER = `
import { createInterface } from 'node:readline';
import { startFakeOllama } from './test/fakes/ollama';
const fake = await startFakeOllama({ knobs: { serving: { firstTokenMs: 1, tokenIntervalMs: 1 } } });
console.log(JSON.stringify({ url: fake.url }));
// One line per command: a timing {"firstTokenMs":…, "tokenIntervalMs":…} → "ok"; "lateness" → the first tokens'
// lateness against their schedule since the last call (ms, sorted), then forgotten.
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'lateness') {
    console.log(JSON.stringify(fake.state.servingLateness.splice(0).sort((a, b) => a - b)));
    continue;
  }
  fake.setKnobs({ serving: JSON.parse(line) });
  console.log('ok');
}
await fake.close();
process.exit(0);
`;

async function buildRunner(): Promise<string> {
  const out = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-bench', 'serving-fake.mjs');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await build({ stdin: { contents: RUNNER, resolveDir: ROOT, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'error' });
  return out;
}

type Fake = {
  url: string;
  setTiming(timing: { firstTokenMs: number; tokenIntervalMs: number }): Promise<void>;
  /** p50 of how late the fake wrote first tokens since the last call (its own timers and CPU), ms. */
  latenessP50(): Promise<number | null>;
  stop(): void;
};

async function startFake(): Promise<Fake> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [await buildRunner()], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done) throw new Error('the fake Ollama exited');
    return r.value;
  };
  const { url } = JSON.parse(await next()) as { url: string };
  return {
    url,
    async setTiming(timing) {
      child.stdin.write(`${JSON.stringify(timing)}\n`);
      if ((await next()) !== 'ok') throw new Error('the fake Ollama did not take the timing');
    },
    async latenessP50() {
      child.stdin.write('lateness\n');
      const sorted = JSON.parse(await next()) as number[];
      return sorted.length > 0 ? percentile(sorted, 50) : null;
    },
    stop: () => void child.kill('SIGTERM'),
  };
}

const pct = (measured: number | undefined, known: number): number | null => (measured === undefined ? null : Math.round((Math.abs(measured - known) / known) * 1000) / 10);

async function level(client: LlmServerClient, concurrency: number, requests: number, outputTokens: number, warmup: number): Promise<{ level: ServingLevel; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const [result] = await runServingLoad(
    client,
    { model: MODEL, concurrency: [concurrency], requestsPerLevel: requests, promptTokens: 64, outputTokens, warmupRequests: warmup, dphTotal: null },
    AbortSignal.timeout(30_000),
  );
  const cpu = process.cpuUsage(cpu0);
  if (!result) throw new Error('no level measured');
  return { level: result, cpuMs: (cpu.user + cpu.system) / 1000 };
}

export async function runServingBench(report: Report, options: { quick: boolean }): Promise<void> {
  const fake = await startFake();
  const started = performance.now();
  try {
    const client = new LlmServerClient({ baseUrl: fake.url });
    await fake.setTiming({ firstTokenMs: F, tokenIntervalMs: G });
    for (const c of [1, 8, 64]) {
      // Enough requests for stable percentiles, bounded in time: at least 2 waves, at least 8 requests.
      const requests = Math.max(8, c * 2);
      // Warm-up at the level's concurrency: c connections open, as in a serving benchmark's steady state.
      const { level: l } = await level(client, c, requests, N, c);
      // The fake's own lateness (its timers, its CPU) is part of what the generator measures: printed beside, and
      // taken out in the "net" figure, which is the generator's own error.
      const late = (await fake.latenessP50()) ?? 0;
      const ideal = (c * N) / ((F + (N - 1) * G) / 1000);
      const errors = {
        ttft: pct(l.ttft_ms?.p50, F),
        tpot: pct(l.tpot_ms?.p50, G),
        itl: pct(l.itl_ms?.p50, G),
        tps: pct(l.output_tokens_per_s, ideal),
      };
      const target = c === 64 || !options.quick ? '≤ 5%' : '';
      const note = `load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores; ${l.requests} requests (${l.failed} failed), ${N} tokens each; known F=${F} ms, G=${G} ms; measured TTFT p50 ${l.ttft_ms?.p50.toFixed(2)} ms, TPOT p50 ${l.tpot_ms?.p50.toFixed(2)} ms, ITL p50 ${l.itl_ms?.p50.toFixed(2)} ms, ${l.output_tokens_per_s.toFixed(1)} output tok/s vs ideal ${ideal.toFixed(1)}`;
      for (const [name, value] of [['TTFT p50', errors.ttft], ['TPOT p50', errors.tpot], ['ITL p50', errors.itl], ['output tok/s', errors.tps]] as const) {
        report.add({ section: 'serving', scenario: `error of ${name} at concurrency ${c}`, value, unit: '%', target, ...(value !== null ? { ok: value <= 5 } : {}), ...(name === 'output tok/s' ? { note } : {}) });
      }
      report.add({
        section: 'serving',
        scenario: `error of TTFT p50 at concurrency ${c}, net of the fake's own lateness`,
        value: pct(l.ttft_ms?.p50, F + late),
        unit: '%',
        target: '',
        note: `the fake wrote first tokens ${late.toFixed(2)} ms late (p50) against F; what remains is connection, request and client-side time`,
      });
    }

    // The ceiling: c long streams at G ms per token each; the offered rate rises until the generator falls behind.
    const steps = [
      { c: 32, g: 4 },
      { c: 64, g: 4 },
      { c: 64, g: 2 },
      { c: 128, g: 2 },
      { c: 128, g: 1 },
      { c: 256, g: 1 },
    ];
    let sustained: { offered: number; received: number; cpuMs: number; seconds: number } | null = null;
    let fellBehind: { offered: number; received: number; cpuShare: number } | null = null;
    // The generator is one Node thread: its ceiling is where it needs all of one core. Tokens per CPU-second
    // of this process, at the busiest step, says where that is even when the machine (the fake, other
    // processes) gives out first.
    let perCpuSecond = 0;
    for (const { c, g } of steps) {
      if (performance.now() - started > 45_000) break;
      await fake.setTiming({ firstTokenMs: g, tokenIntervalMs: g });
      const n = Math.round(1500 / g);
      const offered = (c * 1000) / g;
      const { level: l, cpuMs } = await level(client, c, c, n, 0);
      // Each stream lasts n·G; received = tokens over that window as the generator saw it.
      const received = l.output_tokens_per_s;
      const line = `  offered ${Math.round(offered)} tok/s (${c} streams × 1 token per ${g} ms): received ${Math.round(received)} tok/s, ITL p50 ${l.itl_ms?.p50.toFixed(2)} ms, generator CPU ${Math.round(cpuMs)} ms over ${l.duration_s.toFixed(2)} s${l.failed ? `, ${l.failed} failed: ${l.first_error}` : ''}`;
      console.log(line);
      if (cpuMs > 0 && l.failed === 0) perCpuSecond = Math.max(perCpuSecond, (l.output_tokens * 1000) / cpuMs);
      if (l.failed === 0 && received >= 0.95 * offered) sustained = { offered, received, cpuMs, seconds: l.duration_s };
      else {
        fellBehind = { offered, received, cpuShare: cpuMs / (l.duration_s * 1000) };
        break;
      }
    }
    report.add({
      section: 'serving',
      scenario: 'streamed tokens/s the generator sustains on loopback',
      value: sustained ? Math.round(sustained.received) : null,
      unit: 'tok/s',
      target: '≥ 20000',
      ...(sustained ? { ok: sustained.received >= 20_000 } : {}),
      note: `${sustained ? `received ≥ 95% of an offered ${Math.round(sustained.offered)} tok/s, generator CPU ${Math.round((sustained.cpuMs / (sustained.seconds * 1000)) * 100)}% of one core` : 'no step sustained'}${fellBehind ? `; fell behind at ${Math.round(fellBehind.offered)} offered (received ${Math.round(fellBehind.received)}) with the generator at ${Math.round(fellBehind.cpuShare * 100)}% of one core${fellBehind.cpuShare < 0.9 ? ': not the generator, the fake or the machine gave out first' : ''}` : '; did not fall behind within the steps tried'}; the fake runs in its own process; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`,
    });
    report.add({
      section: 'serving',
      scenario: 'generator ceiling: streamed tokens per CPU-second of the generator (one thread)',
      value: perCpuSecond > 0 ? Math.round(perCpuSecond) : null,
      unit: 'tok/s',
      target: '',
      note: 'tokens received ÷ the generator process’s CPU time at its busiest step: the rate at which it would need a whole core',
    });
  } finally {
    fake.stop();
  }
}
