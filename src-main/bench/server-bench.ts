import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { ROOT, call, startBenchdeskServer, startQuickBackend } from './processes';
import type { Report } from './report';

/** Start-to-healthy time and RSS of the headless server over an existing data dir (e.g. 100k jobs). */
export async function benchStartup(report: Report, dataDir: string, jobs: number): Promise<void> {
  const t0 = performance.now();
  const bd = await startBenchdeskServer(dataDir);
  // "listening" is printed once /healthz can answer; confirm with a real request.
  const agent = new http.Agent({ keepAlive: false });
  const health = await call(agent, bd.url, 'GET', '/healthz');
  const ms = performance.now() - t0;
  const rss = bd.rssMB();
  await bd.stop();
  if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  report.add({ section: 'startup', scenario: `start to healthy with ${jobs} jobs`, value: Math.round(ms), unit: 'ms', target: '≤ 2000 ms', ok: ms <= 2000 });
  report.add({ section: 'startup', scenario: `RSS when healthy with ${jobs} jobs`, value: rss === undefined ? null : Math.round(rss), unit: 'MB', target: '≤ 400 MB', ok: rss === undefined ? undefined : rss <= 400 });
}

async function waitUntilAllEnded(agent: http.Agent, base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const queued = JSON.parse((await call(agent, base, 'GET', '/v1/jobs?limit=1&status=queued')).body) as { jobs: unknown[] };
    const running = JSON.parse((await call(agent, base, 'GET', '/v1/jobs?limit=1&status=running')).body) as { jobs: unknown[] };
    if (queued.jobs.length === 0 && running.jobs.length === 0) return;
    if (Date.now() > deadline) throw new Error('jobs did not finish in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** RSS after N jobs were accepted and ran to completion, and again after an idle pause. */
export async function benchRunMemory(report: Report, options: { jobs: number; idleSeconds: number; root: string }): Promise<void> {
  const dataDir = await fsp.mkdtemp(path.join(options.root, 'memory-'));
  const backend = await startQuickBackend();
  const bd = await startBenchdeskServer(dataDir, { BENCHDESK_CONCURRENCY: '64' });
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const baseline = bd.rssMB();
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < options.jobs) {
          const r = await call(agent, bd.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
          if (r.status !== 202) throw new Error(`submit answered ${r.status}: ${r.body.slice(0, 200)}`);
        }
      }),
    );
    await waitUntilAllEnded(agent, bd.url, 600_000);
    const wall = (performance.now() - t0) / 1000;
    agent.destroy();
    const after = bd.rssMB();
    await new Promise((r) => setTimeout(r, options.idleSeconds * 1000));
    const idle = bd.rssMB();
    report.add({ section: 'memory', scenario: 'RSS at start (empty data dir)', value: baseline === undefined ? null : Math.round(baseline), unit: 'MB', target: '' });
    report.add({
      section: 'memory',
      scenario: `RSS after ${options.jobs} jobs accepted and run to completion`,
      value: after === undefined ? null : Math.round(after),
      unit: 'MB',
      target: '≤ 150 MB',
      ok: after === undefined ? undefined : after <= 150,
      note: `${(options.jobs / wall).toFixed(0)} jobs/s end to end (${wall.toFixed(1)} s)`,
    });
    report.add({
      section: 'memory',
      scenario: `RSS after ${options.idleSeconds} s idle`,
      value: idle === undefined ? null : Math.round(idle),
      unit: 'MB',
      target: 'back toward the start figure',
      ok: idle === undefined || baseline === undefined ? undefined : idle <= Math.max(150, baseline * 2),
    });
  } finally {
    await bd.stop();
    backend.close();
  }
}

/** The renderer's JS + CSS as served, gzip-compressed (dist/renderer from `vite build`). */
export function benchBundle(report: Report): void {
  const assets = path.join(ROOT, 'dist', 'renderer', 'assets');
  if (!fs.existsSync(assets)) {
    report.add({ section: 'renderer', scenario: 'bundle size (JS + CSS, gzip)', value: null, unit: 'KiB', target: '', note: 'dist/renderer is missing: run `npm run build` first' });
    return;
  }
  let raw = 0;
  let gz = 0;
  for (const name of fs.readdirSync(assets)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const buf = fs.readFileSync(path.join(assets, name));
    raw += buf.length;
    gz += gzipSync(buf, { level: 9 }).length;
  }
  report.add({ section: 'renderer', scenario: 'bundle size, every page (JS + CSS, gzip)', value: Math.round(gz / 1024), unit: 'KiB', target: '', note: `${Math.round(raw / 1024)} KiB uncompressed` });

  // What the window loads before its first page: index.html's module script and the chunks it preloads (pages load lazily).
  const html = fs.readFileSync(path.join(ROOT, 'dist', 'renderer', 'index.html'), 'utf8');
  const initial = [...html.matchAll(/<(?:script type="module"[^>]*\ssrc|link rel="modulepreload"[^>]*\shref)="\.\/assets\/([^"]+\.js)"/g)].map((m) => m[1] as string);
  const initialGzip = initial.reduce((sum, name) => sum + gzipSync(fs.readFileSync(path.join(assets, name)), { level: 9 }).length, 0);
  const kb = initialGzip / 1000;
  report.add({
    section: 'renderer',
    scenario: 'initial JS (gzip)',
    value: Math.round(kb * 10) / 10,
    unit: 'KB',
    target: '≤ 350 KB',
    ok: initial.length > 0 ? kb <= 350 : undefined,
    note: initial.length > 0 ? `${initial.length} chunk(s): ${initial.join(', ')}` : 'no module script found in dist/renderer/index.html',
  });
}

/**
 * The 10,000-row Jobs page render time comes from the renderer's own script
 * (e2e/bench-jobs-render.mjs, Chromium against the real server) when it exists; it prints one JSON
 * line with medians (in_app_navigation_ms_median, cold_load_to_rows_ms_median).
 */
export function benchJobsRender(report: Report): void {
  const script = path.join(ROOT, 'e2e', 'bench-jobs-render.mjs');
  if (!fs.existsSync(script)) {
    report.add({ section: 'renderer', scenario: 'Jobs page, 10,000 rows: render time', value: null, unit: 'ms', target: '', note: 'not measured: e2e/bench-jobs-render.mjs does not exist' });
    return;
  }
  const res = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  const line = res.stdout.split('\n').reverse().find((l) => l.trim().startsWith('{'));
  let parsed: Record<string, unknown> = {};
  try {
    parsed = line ? (JSON.parse(line) as Record<string, unknown>) : {};
  } catch {
    parsed = {};
  }
  const num = (k: string): number | null => (typeof parsed[k] === 'number' ? (parsed[k] as number) : null);
  const inApp = num('in_app_navigation_ms_median') ?? num('render_ms');
  const cold = num('cold_load_to_rows_ms_median');
  const failed = inApp === null && cold === null;
  report.add({
    section: 'renderer',
    scenario: 'Jobs page, 10,000 rows: render (in-app navigation → rows painted, median)',
    value: inApp === null ? null : Math.round(inApp),
    unit: 'ms',
    target: '≤ 200 ms',
    ...(inApp === null ? {} : { ok: inApp <= 200 }),
    ...(failed ? { note: `the script printed no figures (exit ${res.status}): ${(res.stderr || res.stdout).slice(-300)}` } : {}),
  });
  if (cold !== null) {
    report.add({ section: 'renderer', scenario: 'Jobs page, 10,000 rows: cold load → rows painted (median)', value: Math.round(cold), unit: 'ms', target: '' });
  }
}
