import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { TOKEN, call, startBareServer, startBenchdeskServer, startSilentBackend, type Child } from './processes';
import type { Report } from './report';

export type WrkResult = { rps: number; p99ms: number; maxMs: number; non2xx: number; socketErrors: number };

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

export function parseWrk(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  // "Latency  avg  stdev  max  +/-stdev": the longest wait shows a stall that a p99 can hide.
  const max = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sock ? sock.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  return { rps, p99ms: p99?.[1] && p99[2] ? toMs(p99[1], p99[2]) : NaN, maxMs: max?.[1] && max[2] ? toMs(max[1], max[2]) : NaN, non2xx, socketErrors };
}

type Target = { method: 'GET' | 'POST'; path: string; body?: string };

async function luaFor(target: Target, auth: boolean): Promise<string> {
  const file = path.join(os.tmpdir(), `benchdesk-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  const lines = [`wrk.method = "${target.method}"`];
  if (auth) lines.push(`wrk.headers["Authorization"] = "Bearer ${TOKEN}"`);
  if (target.body !== undefined) {
    lines.push('wrk.headers["Content-Type"] = "application/json"');
    lines.push(`wrk.body = ${JSON.stringify(target.body)}`);
  }
  await fsp.writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

export async function runWrk(wrk: string, base: string, target: Target, connections: number, seconds: number, auth = true): Promise<WrkResult> {
  const script = await luaFor(target, auth);
  try {
    const res = spawnSync(wrk, ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, `${base}${target.path}`], { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
    if (res.status !== 0) throw new Error(`wrk failed: ${res.stderr || res.stdout}`);
    return parseWrk(res.stdout);
  } finally {
    await fsp.rm(script, { force: true });
  }
}

/** Pairs of runs behind each figure that has a target (16 connections). */
const TARGET_PAIRS = 3;

type Scenario = {
  name: string;
  target: (ctx: { jobId: string; backend: string }) => Target;
  bare: 'static' | 'group-commit';
  /** Ratio target and p99 target at 16 connections (as the issue measured them). */
  ratio?: number;
  p99ms?: number;
};

const SCENARIOS: Scenario[] = [
  { name: 'GET /v1/jobs/{id}', target: ({ jobId }) => ({ method: 'GET', path: `/v1/jobs/${jobId}` }), bare: 'static', ratio: 0.6, p99ms: 10 },
  { name: 'POST /v1/estimates (no key)', target: () => ({ method: 'POST', path: '/v1/estimates', body: '{"marketplace":false}' }), bare: 'static', ratio: 0.5 },
  {
    name: 'durable POST /v1/jobs/llm-instance',
    target: ({ backend }) => ({ method: 'POST', path: '/v1/jobs/llm-instance', body: JSON.stringify({ backend_url: backend }) }),
    bare: 'group-commit',
    ratio: 0.3,
    p99ms: 25,
  },
  { name: 'GET /v1/jobs?limit=50', target: () => ({ method: 'GET', path: '/v1/jobs?limit=50' }), bare: 'static' },
];

/**
 * The API against bare node:http, both driven by wrk (1 thread) at 1, 16 and 64 keep-alive
 * connections, one after the other in this run, each printed with its ratio.
 */
export async function runHttpBench(report: Report, wrk: string, options: { connections: number[]; seconds: number; cpuProf?: string; root: string }): Promise<void> {
  // Under the run's root, removed when the whole run ends (see index.ts).
  const dataDir = await fsp.mkdtemp(path.join(options.root, 'http-'));
  const backend = await startSilentBackend();
  const servers: Child[] = [];
  try {
    const bd = await startBenchdeskServer(dataDir, {}, options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : []);
    servers.push(bd);
    const agent = new http.Agent({ keepAlive: true });
    // Some jobs so the list has a page of 50 and GET has a job to read.
    let jobId = '';
    for (let i = 0; i < 60; i++) {
      const r = await call(agent, bd.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
      if (r.status !== 202) throw new Error(`setup submit answered ${r.status}: ${r.body}`);
      jobId = (JSON.parse(r.body) as { job_id: string }).job_id;
    }
    const ctx = { jobId, backend: backend.url };
    for (const sc of SCENARIOS) {
      const target = sc.target(ctx);
      let bare: Child;
      if (sc.bare === 'static') {
        // The bare server answers the very bytes benchdesk answered for this request.
        const sample = await call(agent, bd.url, target.method, target.path, target.body === undefined ? undefined : JSON.parse(target.body));
        if (sample.status >= 300) throw new Error(`${sc.name} answered ${sample.status}: ${sample.body.slice(0, 300)}`);
        const file = path.join(dataDir, `bare-${servers.length}.json`);
        fs.writeFileSync(file, JSON.stringify(sample));
        bare = await startBareServer('static', file);
      } else {
        bare = await startBareServer('group-commit', '');
      }
      servers.push(bare);
      // Warm-up (JIT) for both, not recorded.
      await runWrk(wrk, bd.url, target, 16, 1);
      await runWrk(wrk, bare.url, target, 16, 1, false);
      for (const c of options.connections) {
        const at16 = c === 16;
        // The figure with a target is the median of alternating pairs (ours, bare, ours, bare…):
        // on a shared two-core machine one short pair moved the ratio by ±0.15 from run to run.
        const pairs: { ours: WrkResult; ref: WrkResult }[] = [];
        for (let i = 0; i < (at16 ? TARGET_PAIRS : 1); i++) {
          const oursRun = await runWrk(wrk, bd.url, target, c, options.seconds);
          pairs.push({ ours: oursRun, ref: await runWrk(wrk, bare.url, target, c, options.seconds, false) });
        }
        pairs.sort((a, b) => a.ours.rps / a.ref.rps - b.ours.rps / b.ref.rps);
        const { ours, ref } = pairs[Math.floor(pairs.length / 2)] as { ours: WrkResult; ref: WrkResult };
        const ratio = ours.rps / ref.rps;
        const spread = pairs.length > 1 ? `median of ${pairs.length} alternating runs, range ${pairs.map((p) => (p.ours.rps / p.ref.rps).toFixed(2)).join('–').replace(/–.*–/, '–')}` : '';
        const errors = ours.non2xx + ours.socketErrors;
        report.add({
          section: 'http',
          scenario: `${sc.name} c=${c} req/s`,
          value: Math.round(ours.rps),
          unit: 'req/s',
          target: '',
          note: `bare node ${Math.round(ref.rps)} req/s${errors ? `; ${errors} non-2xx/socket errors` : ''}`,
        });
        report.add({
          section: 'http',
          scenario: `${sc.name} c=${c} ratio to bare node`,
          value: Math.round(ratio * 100) / 100,
          unit: '',
          target: at16 && sc.ratio !== undefined ? `≥ ${sc.ratio.toFixed(2)}` : '',
          ok: at16 && sc.ratio !== undefined ? ratio >= sc.ratio : undefined,
          ...(spread ? { note: spread } : {}),
        });
        report.add({
          section: 'http',
          scenario: `${sc.name} c=${c} p99`,
          value: Math.round(ours.p99ms * 100) / 100,
          unit: 'ms',
          target: at16 && sc.p99ms !== undefined ? `≤ ${sc.p99ms} ms` : '',
          ok: at16 && sc.p99ms !== undefined ? ours.p99ms <= sc.p99ms : undefined,
          note: `bare node p99 ${ref.p99ms.toFixed(2)} ms; longest wait ${ours.maxMs.toFixed(0)} ms (bare ${ref.maxMs.toFixed(0)} ms)`,
        });
      }
      await bare.stop();
      servers.splice(servers.indexOf(bare), 1);
    }
    agent.destroy();
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    backend.close();
  }
}
