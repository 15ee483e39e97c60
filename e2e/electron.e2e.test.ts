import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS_DIR, ROOT, freePort } from './support';

/**
 * Electron mode end to end, where an Electron binary exists: launch, an IPC round trip (a unary
 * call and a pushed stream), the hardening flags, and the single-instance lock. Never
 * `require('electron')` here: in plain Node that starts a download. The binary's location is read
 * from path.txt instead. Without a binary (or a display) the suite is skipped and says why, both
 * in the suite's name and on the console.
 */
function findElectron(): { binary: string } | { reason: string } {
  const pkgDir = path.join(ROOT, 'node_modules', 'electron');
  const pathTxt = path.join(pkgDir, 'path.txt');
  if (!existsSync(pathTxt)) return { reason: 'no Electron binary (node_modules/electron/path.txt is absent; it is downloaded on first use, which needs the network)' };
  const binary = path.join(pkgDir, 'dist', readFileSync(pathTxt, 'utf8').trim());
  if (!existsSync(binary)) return { reason: `Electron binary ${binary} is missing` };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'no display (DISPLAY/WAYLAND_DISPLAY unset; run the suite under xvfb-run)' };
  }
  const built = ['dist/main/electron-main.js', 'dist/main/preload.cjs', 'dist/renderer/index.html'];
  const missing = built.filter((f) => !existsSync(path.join(ROOT, f)));
  if (missing.length > 0) return { reason: `build output missing: ${missing.join(', ')} (run npm run build)` };
  return { binary };
}

const found = findElectron();
const skipReason = 'reason' in found ? found.reason : null;
if (skipReason) console.log(`electron e2e SKIPPED: ${skipReason}`);

/** What the page sees of the preload bridge (the few members these tests call). */
type PageApi = {
  getHealth(input: Record<string, never>): Promise<{ status: string }>;
  createJob(input: { kind: 'llm-instance'; request: { backend_url: string } }): Promise<{ job_id: string }>;
  openStream(streamId: string, operation: string, input: unknown): Promise<void>;
  closeStream(streamId: string): Promise<void>;
  onStreamMessage(listener: (message: { type: string; stream_id: string; item?: { job_id?: string; event?: string } }) => void): () => void;
};

describe.skipIf(skipReason !== null)(skipReason ? `electron app (SKIPPED: ${skipReason})` : 'electron app', () => {
  let dataDir = '';
  let app: ElectronApplication | undefined;
  let page: Page | undefined;
  let env: Record<string, string> = {};
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!('binary' in found)) return;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-electron-e2e-'));
    env = {
      ...(process.env as Record<string, string>),
      // The data dir also moves Electron's userData, so the single-instance lock is this test's own.
      BENCHDESK_DATA_DIR: dataDir,
      BENCHDESK_HOST: '127.0.0.1',
      BENCHDESK_PORT: String(await freePort()),
    };
    app = await electron.launch({ executablePath: found.binary, args: [ROOT], cwd: ROOT, env });
    page = await app.firstWindow();
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
    await page.waitForFunction('typeof window.api === "object"', undefined, { timeout: 20_000 });
  });

  afterAll(async () => {
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('launches and shows a healthy API through the preload bridge', async () => {
    if (!page) throw new Error('setup failed');
    await page.locator('[data-testid="health-status"][data-state="ok"]').waitFor({ timeout: 20_000 });
    expect((await page.locator('[data-testid="health-transport"]').textContent())?.trim()).toBe('electron');
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'electron-health.png') });
    expect(consoleErrors).toEqual([]);
  });

  it('IPC round trip: a unary call answers, and a stream pushes the events of a job started over IPC', async () => {
    if (!page) throw new Error('setup failed');
    const result = await page.evaluate(async () => {
      const api = (globalThis as unknown as { api: PageApi }).api;
      const health = await api.getHealth({});
      const pushed: { job_id?: string; event?: string }[] = [];
      let seen: (() => void) | undefined;
      const off = api.onStreamMessage((m) => {
        if (m.stream_id !== 'e2e-feed' || m.type !== 'item' || !m.item) return;
        pushed.push(m.item);
        seen?.();
      });
      await api.openStream('e2e-feed', 'streamEvents', {});
      // A backend nothing listens on: the job is accepted, runs and fails fast.
      const job = await api.createJob({ kind: 'llm-instance', request: { backend_url: 'http://127.0.0.1:9' } });
      const deadline = Date.now() + 15_000;
      while (!pushed.some((e) => e.job_id === job.job_id && e.event === 'job.failed') && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          seen = resolve;
          setTimeout(resolve, 250);
        });
      }
      off();
      await api.closeStream('e2e-feed');
      return { status: health.status, events: pushed.filter((e) => e.job_id === job.job_id).map((e) => e.event) };
    });
    expect(result.status).toBe('ok');
    expect(result.events[0]).toBe('job.queued');
    expect(result.events).toContain('job.running');
    expect(result.events.at(-1)).toBe('job.failed');
  });

  it('hardening: no Node in the page, one named bridge method per operation, sandbox + isolation, links only to the system browser', async () => {
    if (!page || !app) throw new Error('setup failed');
    expect(await page.evaluate('typeof require')).toBe('undefined');
    expect(await page.evaluate('typeof process')).toBe('undefined');
    expect(await page.evaluate('typeof module')).toBe('undefined');
    // The preload exposes window.api only when process.sandboxed and process.contextIsolated are
    // both true (it throws otherwise), and contextBridge hands over bridged functions, not the
    // preload's own.
    const keys = (await page.evaluate('Object.keys(window.api).sort()')) as string[];
    expect(keys).toContain('getHealth');
    expect(keys).toContain('getAppInfo');
    expect(keys).not.toContain('invoke');
    expect(await page.evaluate('Function.prototype.toString.call(window.api.getHealth)')).toMatch(/\[native code\]/);

    // Record what would reach the system browser instead of opening one.
    await app.evaluate(({ shell }) => {
      const g = globalThis as unknown as { opened: string[] };
      g.opened = [];
      shell.openExternal = async (url: string) => {
        g.opened.push(url);
      };
    });
    const before = page.url();
    expect(await page.evaluate('window.open("https://example.com/docs") === null')).toBe(true);
    expect(await page.evaluate('window.open("file:///etc/passwd") === null')).toBe(true);
    await page.evaluate('location.href = "https://example.com/navigated"').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(page.url()).toBe(before);
    expect(app.windows()).toHaveLength(1);
    const opened = await app.evaluate(() => (globalThis as unknown as { opened: string[] }).opened);
    expect(opened.sort()).toEqual(['https://example.com/docs', 'https://example.com/navigated']);

    const info = (await page.evaluate('window.api.getAppInfo({})')) as { version: string; data_dir: string; electron: string };
    expect(info.data_dir).toBe(dataDir);
    expect(info.electron).toMatch(/^\d+\./);
  });

  it('single instance: a second launch exits at once and focuses the first', async () => {
    if (!app || !('binary' in found)) throw new Error('setup failed');
    await app.evaluate(({ app: electronApp }) => {
      const g = globalThis as unknown as { secondLaunches?: number };
      g.secondLaunches = 0;
      electronApp.on('second-instance', () => {
        g.secondLaunches = (g.secondLaunches ?? 0) + 1;
      });
    });
    const second = spawn(found.binary, [ROOT], { cwd: ROOT, env, stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        second.kill('SIGKILL');
        reject(new Error('the second instance did not exit'));
      }, 20_000);
      second.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    const launches = await app.evaluate(() => (globalThis as unknown as { secondLaunches?: number }).secondLaunches);
    expect(launches).toBe(1);
    expect(app.windows()).toHaveLength(1);
  });
});
