import os from 'node:os';
import type { ServingLevel, ServingLevelSpec } from '../../shared';
import type { LlmBackend } from '../llm/backend-port';
import { LlmServerClient } from '../llm/llmserver-client';
import { OpenAiClient } from '../llm/openai-client';
import { randomSource } from '../serving/dataset';
import { runServingLoad } from '../serving/generator';
import type { Report } from './report';
import { startServingFakes, type BenchApi, type ServingFakes } from './serving-fakes';
import { referenceRun } from './serving-reference';

/**
 * The serving benchmark's accuracy and ceiling (design §10, §13b), against the fake Ollama and the
 * fake vLLM of known timing (first token after F ms, then one every G ms, on an absolute schedule)
 * in a child process:
 * - Accuracy at concurrency 1, 8 and 64, both APIs: the generator's TTFT p50 against F and its
 *   output tokens/s against the closed loop's ideal c·n / (F + (n − 1)·G), beside a minimal
 *   reference client (serving-reference.ts) run right after it, and once more with this thread's
 *   event loop blocked half the time (as the app's engine, API and zod would hold it): the
 *   generator's worker thread must not notice.
 * - A Poisson rate level: its achieved request rate against the asked one.
 * - Ceiling: long streams at a rising offered rate; the generator sustains a rate while it
 *   receives ≥ 95% of it.
 * Bounded: about two minutes on an idle machine (the ceiling at most one).
 */

const F = 100;
const G = 20;
const N = 32;
const MODELS: Record<BenchApi, string> = { ollama: 'llama3.1:8b', openai: 'bench-model' };

function backendOf(fakes: ServingFakes, api: BenchApi): LlmBackend {
  return api === 'ollama' ? new LlmServerClient({ baseUrl: fakes.urls.ollama }) : new OpenAiClient({ baseUrl: fakes.urls.openai });
}

async function level(backend: LlmBackend, spec: ServingLevelSpec, requests: number, outputTokens: number, warmup: number): Promise<{ level: ServingLevel; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const [result] = await runServingLoad(
    backend,
    {
      source: randomSource({ inputTokens: 64, outputTokens, rangeRatio: 0, seed: 0 }),
      body: { api: backend.api, endpoint: 'chat', model: MODELS[backend.api], numCtx: null, ignoreEos: true, minTokens: undefined, temperature: undefined, seed: undefined, engine: backend.api === 'openai' ? 'vllm' : 'ollama' },
    },
    { levels: [spec], requestsPerLevel: requests, durationS: null, warmupRequests: warmup, dphTotal: null, slo: null, seed: 1, requestTimeoutMs: 60_000, levelTimeoutMs: 60_000 },
    AbortSignal.timeout(60_000),
  );
  const cpu = process.cpuUsage(cpu0);
  if (!result) throw new Error('no level measured');
  return { level: result, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Blocks this thread's event loop `share` of the time (10 ms slices) while `work` runs, as an app's
 * engine, API and zod checks hold it. It blocks without spinning (Atomics.wait), so what is measured
 * is the event loop's unavailability, not two processes fighting over these 2 cores.
 */
async function withBlockedThread<T>(share: number, work: () => Promise<T>): Promise<T> {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const block = () => void Atomics.wait(cell, 0, 0, 10 * share);
  const timer = setInterval(block, 10);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const pct = (measured: number | undefined | null, known: number): number | null => (measured == null ? null : Math.round((Math.abs(measured - known) / known) * 1000) / 10);

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** One measurement of each client at concurrency c: the generator, the reference client, the generator with this thread blocked half the time. */
async function measureOnce(fakes: ServingFakes, backend: LlmBackend, api: BenchApi, c: number, requests: number) {
  const { level: l } = await level(backend, { kind: 'concurrency', concurrency: c }, requests, N, c);
  const late = (await fakes.latenessP50(api)) ?? 0;
  const ref = await referenceRun({ api, url: fakes.urls[api], model: MODELS[api], concurrency: c, requests, outputTokens: N, prompt: `Request 0. ${'word '.repeat(50)}` });
  await fakes.latenessP50(api);
  const { level: blocked } = await withBlockedThread(0.5, () => level(backend, { kind: 'concurrency', concurrency: c }, requests, N, c));
  await fakes.latenessP50(api);
  return { ttft: l.ttft_ms?.p50 ?? Number.NaN, tps: l.output_tokens_per_s, failed: l.failed, late, refTtft: ref.ttftP50, refTps: ref.outputTokensPerS, blockedTtft: blocked.ttft_ms?.p50 ?? Number.NaN, blockedTps: blocked.output_tokens_per_s };
}

async function accuracy(report: Report, fakes: ServingFakes, api: BenchApi): Promise<void> {
  const backend = backendOf(fakes, api);
  await fakes.setTiming(api, { firstTokenMs: F, tokenIntervalMs: G });
  for (const c of [1, 8, 64]) {
    // At least 3 waves, at least 8 requests; the warm-up opens c connections, as a level's steady state has.
    const requests = Math.max(8, 3 * c);
    // At 64 the machine's noise dominates one run: the median of three, each client in turn, so all see the same hour.
    const runs: Awaited<ReturnType<typeof measureOnce>>[] = [];
    for (let i = 0; i < (c >= 64 ? 3 : 1); i++) runs.push(await measureOnce(fakes, backend, api, c, requests));
    const m = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
    const ideal = (c * N) / ((F + (N - 1) * G) / 1000);
    const errors = { ttft: pct(m((r) => r.ttft), F), tps: pct(m((r) => r.tps), ideal) };
    const note = `${api}, ${requests} requests of ${N} tokens${runs.length > 1 ? `, the median of ${runs.length} runs` : ''} (${runs.reduce((a, r) => a + r.failed, 0)} failed); known F=${F} ms G=${G} ms; generator TTFT p50 ${m((r) => r.ttft).toFixed(2)} ms, ${m((r) => r.tps).toFixed(1)} tok/s (ideal ${ideal.toFixed(1)}); reference client TTFT p50 ${m((r) => r.refTtft).toFixed(2)} ms (${pct(m((r) => r.refTtft), F)}%), ${m((r) => r.refTps).toFixed(1)} tok/s (${pct(m((r) => r.refTps), ideal)}%); with this thread's event loop blocked 50% of the time: TTFT p50 ${m((r) => r.blockedTtft).toFixed(2)} ms (${pct(m((r) => r.blockedTtft), F)}%), ${m((r) => r.blockedTps).toFixed(1)} tok/s (${pct(m((r) => r.blockedTps), ideal)}%); the fake was ${m((r) => r.late).toFixed(2)} ms late; load ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`;
    report.add({ section: 'serving', scenario: `${api}: error of TTFT p50 at concurrency ${c} (reference client: ${pct(m((r) => r.refTtft), F)}%)`, value: errors.ttft, unit: '%', target: '≤ 3%', ...(errors.ttft !== null ? { ok: errors.ttft <= 3 } : {}) });
    report.add({ section: 'serving', scenario: `${api}: error of output tok/s at concurrency ${c} (reference client: ${pct(m((r) => r.refTps), ideal)}%)`, value: errors.tps, unit: '%', target: '≤ 2%', ...(errors.tps !== null ? { ok: errors.tps <= 2 } : {}), note });
  }
}

async function rateLevel(report: Report, fakes: ServingFakes, api: BenchApi): Promise<void> {
  await fakes.setTiming(api, { firstTokenMs: 20, tokenIntervalMs: 5 });
  const rate = 50;
  const { level: l } = await level(backendOf(fakes, api), { kind: 'rate', rate, burstiness: 1, maxConcurrency: null }, 200, 16, 4);
  const error = pct(l.achieved_request_rate, rate);
  report.add({ section: 'serving', scenario: `${api}: achieved request rate of a Poisson level at ${rate} req/s`, value: l.achieved_request_rate, unit: 'req/s', target: '±5%', ...(error !== null ? { ok: error <= 5 } : {}), note: `${error}% off; ${l.requests} requests, ${l.failed} failed` });
}

async function ceiling(report: Report, fakes: ServingFakes): Promise<void> {
  const started = performance.now();
  const backend = backendOf(fakes, 'ollama');
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
  // The generator is one worker thread; the process's CPU (both threads) per token says where it needs a whole core.
  let perCpuSecond = 0;
  for (const { c, g } of steps) {
    if (performance.now() - started > 60_000) break;
    await fakes.setTiming('ollama', { firstTokenMs: g, tokenIntervalMs: g });
    const n = Math.round(1500 / g);
    const offered = (c * 1000) / g;
    const { level: l, cpuMs } = await level(backend, { kind: 'concurrency', concurrency: c }, c, n, 0);
    const received = l.output_tokens_per_s;
    console.log(`  offered ${Math.round(offered)} tok/s (${c} streams × 1 token per ${g} ms): received ${Math.round(received)} tok/s, ITL p50 ${l.itl_ms?.p50.toFixed(2)} ms, CPU ${Math.round(cpuMs)} ms over ${l.duration_s.toFixed(2)} s${l.failed ? `, ${l.failed} failed: ${l.first_error}` : ''}`);
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
    note: `${sustained ? `received ≥ 95% of an offered ${Math.round(sustained.offered)} tok/s, CPU ${Math.round((sustained.cpuMs / (sustained.seconds * 1000)) * 100)}% of one core` : 'no step sustained'}${fellBehind ? `; fell behind at ${Math.round(fellBehind.offered)} offered (received ${Math.round(fellBehind.received)}) at ${Math.round(fellBehind.cpuShare * 100)}% of one core${fellBehind.cpuShare < 0.9 ? ': not the generator, the fake or the machine gave out first' : ''}` : '; did not fall behind within the steps tried'}; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`,
  });
  report.add({ section: 'serving', scenario: 'generator ceiling: streamed tokens per CPU-second of the process', value: perCpuSecond > 0 ? Math.round(perCpuSecond) : null, unit: 'tok/s', target: '', note: 'tokens received ÷ CPU time (worker and main thread) at the busiest step' });
}

export async function runServingBench(report: Report, options: { quick: boolean }): Promise<void> {
  const fakes = await startServingFakes();
  try {
    for (const api of ['ollama', 'openai'] as const) {
      await accuracy(report, fakes, api);
      await rateLevel(report, fakes, api);
    }
    if (!options.quick) await ceiling(report, fakes);
  } finally {
    fakes.stop();
  }
}
