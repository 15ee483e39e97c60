#!/usr/bin/env node
// The Jobs page's first render with 10,000 stored jobs, measured with the Performance API in
// Debian Chromium against the real headless server (dist/main/server.js serving dist/renderer).
// Prints one JSON line. `npm run bench` calls it; it is a measurement, never a test assertion.
// Needs: `node scripts/build.mjs && npx vite build`, and Chromium (BENCHDESK_CHROMIUM or /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '..');
const N = Number(process.env.BENCH_JOBS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHROMIUM = process.env.BENCHDESK_CHROMIUM ?? '/usr/bin/chromium';

for (const f of ['dist/main/server.js', 'dist/renderer/index.html']) {
  if (!existsSync(path.join(ROOT, f))) {
    console.error(`missing ${f}: run \`node scripts/build.mjs && npx vite build\` first`);
    process.exit(2);
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// The seeding code is TypeScript shared with the e2e test: bundle it next to node_modules and load it.
const cache = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-bench');
mkdirSync(cache, { recursive: true });
const seedBundle = path.join(cache, 'seed-jobs.mjs');
await build({ entryPoints: [path.join(ROOT, 'e2e', 'seed-jobs.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: seedBundle, logLevel: 'warning' });
const { seedJobs } = await import(pathToFileURL(seedBundle).href);

/** Polls a Performance API expression until it has a value (the page's CSP forbids waitForFunction's eval). */
async function readEntry(page, expression) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await page.evaluate(expression);
    if (value !== null) return value;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-bench-ui-'));
const token = randomBytes(24).toString('base64url');
let child;
let browser;
try {
  const seedStart = performance.now();
  await seedJobs(dataDir, N);
  const seedMs = performance.now() - seedStart;

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main', 'server.js')], {
    cwd: ROOT,
    env: { ...process.env, BENCHDESK_HOST: '127.0.0.1', BENCHDESK_PORT: String(port), BENCHDESK_DATA_DIR: dataDir, SERVICE_API_TOKENS: `default:${token}`, BENCHDESK_SERVE_UI: '1', SERVICE_API_AUTH_DISABLED: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-quic'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(`${baseUrl}/ui/#token=${token}`);
  await page.locator('[data-testid="app-ready"]').waitFor();

  const inApp = [];
  const cold = [];
  for (let i = 0; i < RUNS; i++) {
    // In-app navigation: Overview → Jobs (page mount → first rows painted).
    await page.evaluate("window.location.hash = '/'");
    await page.locator('[data-testid="page-jobs"]').waitFor({ state: 'detached' });
    await page.waitForTimeout(200);
    await page.evaluate("performance.clearMarks(); performance.clearMeasures(); window.location.hash = '/jobs'");
    inApp.push(await readEntry(page, "performance.getEntriesByName('benchdesk:jobs-first-render')[0]?.duration ?? null"));
    // A cold load of #/jobs (the token stays in this tab's session): navigation start → first rows.
    await page.reload();
    cold.push(await readEntry(page, "performance.getEntriesByName('benchdesk:jobs-rows')[0]?.startTime ?? null"));
  }
  const med = (xs) => {
    const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
    return s.length ? Math.round(s[Math.floor(s.length / 2)] * 10) / 10 : null;
  };
  console.log(
    JSON.stringify({
      bench: 'jobs_page_first_render',
      jobs: N,
      runs: RUNS,
      in_app_navigation_ms_median: med(inApp),
      cold_load_to_rows_ms_median: med(cold),
      in_app_navigation_ms: inApp,
      cold_load_to_rows_ms: cold,
      seed_ms: Math.round(seedMs),
      note: 'Performance API marks in the Jobs page: mount → first rows painted (in-app), navigation start → first rows painted (cold)',
    }),
  );
} finally {
  await browser?.close();
  child?.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
