import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fallbackSentence, findElectronBinary } from '../scripts/lib/start-mode.mjs';
import { RESULTS_DIR, ROOT, freePort } from './support';

/**
 * The README's commands as a newcomer runs them, on a machine where Electron cannot start (no
 * binary, none downloadable): `npm start` says why in one line, runs the same app in the browser
 * and prints the URL to open; the page loads in Chromium signed in with the token the app created
 * in its data dir; Ctrl-C stops it cleanly. And `npm run serve` prints the URL for the token it
 * was given.
 */
const CHROMIUM = process.env.BENCHDESK_CHROMIUM ?? '/usr/bin/chromium';

/** What the terminal shows, and a Ctrl-C for the whole process group as a terminal sends it. */
type NpmRun = { child: ChildProcess; output(): string; waitFor(re: RegExp, ms: number): Promise<RegExpExecArray>; ctrlC(): void; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

function npm(args: string[], env: Record<string, string>): NpmRun {
  const npmCli = process.env.npm_execpath;
  const [file, argv] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
  const child = spawn(file, argv, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    output: () => output,
    exited,
    ctrlC: () => process.kill(-(child.pid as number), 'SIGINT'),
    waitFor: (re, ms) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = re.exec(output);
          if (match) {
            finish();
            resolve(match);
          }
        };
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no ${re} within ${ms} ms. Output:\n${output}`));
        }, ms);
        void exited.then(({ code, signal }) => {
          if (re.exec(output)) return;
          finish();
          reject(new Error(`npm ${args.join(' ')} ended (${signal ?? `code ${code}`}) before ${re}. Output:\n${output}`));
        });
        listeners.add(check);
        check();
      }),
  };
}

/** The environment of a newcomer's shell: no tokens or benchdesk settings of ours leak in. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('BENCHDESK_') || key === 'SERVICE_API_TOKENS' || key === 'SERVICE_API_AUTH_DISABLED' || key === 'VAST_API_KEY') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Opens `url` in Chromium and waits for the Overview to show a healthy, signed-in API. */
async function openSignedIn(browser: Browser, url: string, token: string, screenshot: string): Promise<string[]> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  try {
    await page.goto(url);
    await page.locator('[data-testid="overview-api-state"][data-state="ok"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-testid="overview-api"]').innerText()).toContain('enabled');
    // Signed in: the token left the address bar for the tab's storage.
    expect(page.url()).not.toContain(token);
    expect(await page.evaluate("sessionStorage.getItem('benchdesk.apiToken')")).toBe(token);
    // Every panel loaded (a fresh data dir: all empty), and the page lists no error: no problem panel, no banner.
    for (const empty of ['overview-no-active', 'overview-no-machines', 'overview-no-failures']) {
      await page.locator(`[data-testid="${empty}"]`).waitFor({ timeout: 20_000 });
    }
    const alerts = await page.locator('[role="alert"]').allInnerTexts();
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS_DIR, screenshot), fullPage: true });
    return [...errors, ...alerts.map((text) => `alert: ${text}`)];
  } finally {
    await page.close();
  }
}

describe('the README commands on a machine without Electron', () => {
  let browser: Browser | undefined;
  const dirs: string[] = [];
  const running: NpmRun[] = [];

  beforeAll(async () => {
    // Fail, never skip: CI installs Chromium, so a missing one is a broken environment.
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set BENCHDESK_CHROMIUM`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-quic'] });
  });

  afterAll(async () => {
    await browser?.close();
    for (const run of running) {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        process.kill(-(run.child.pid as number), 'SIGKILL');
        await run.exited;
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('npm start says why in one line, serves the app in the browser with its own token, and stops cleanly on Ctrl-C', { timeout: 240_000 }, async () => {
    if (!browser) throw new Error('setup failed');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-npm-start-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env = cleanEnv({ BENCHDESK_DATA_DIR: dataDir, BENCHDESK_PORT: String(port), ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    // The case to prove is this machine's: no Electron binary. Where one is installed, hide it.
    if (findElectronBinary(path.join(ROOT, 'node_modules', 'electron'), env, { existsSync, readFileSync }).state === 'present') {
      env.ELECTRON_OVERRIDE_DIST_PATH = path.join(dataDir, 'no-electron-here');
    }

    const run = npm(['start'], env);
    running.push(run);
    const [, url = ''] = await run.waitFor(/^Open the browser UI: (\S+)$/m, 180_000);
    // The banner's last line: the lines before it have all arrived.
    await run.waitFor(/^Ctrl-C stops the server\.$/m, 10_000);

    expect(run.output()).toContain(`${fallbackSentence('no-binary')}\n`);
    expect(run.output()).not.toMatch(/Downloading Electron binary|^\s+at /m);
    const parsed = new URL(url);
    expect(parsed.origin).toBe(`http://127.0.0.1:${port}`);
    expect(parsed.pathname).toBe('/ui/');
    const token = new URLSearchParams(parsed.hash.slice(1)).get('token') ?? '';
    // The token the app created in its data dir (0600), as the desktop app does; the CLI reads it there.
    const tokenFile = path.join(dataDir, 'api-token');
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(run.output()).toContain(`(The API token is kept in ${tokenFile}; the CLI reads it from there.)`);
    // The front door (issue 34 item 11): the export line the README's curl lines use, one line for
    // the build, and neither the JSON log (it goes to the data dir) nor Vite's chunk list and warning.
    expect(run.output()).toContain(`For curl and scripts: export BENCHDESK_TOKEN="$(cat ${tokenFile})"`);
    expect(run.output()).toMatch(/^benchdesk: built in \d+\.\d s$/m);
    expect(run.output()).not.toMatch(/^\{"level":/m);
    expect(run.output()).not.toMatch(/dist\/renderer\/assets|configLoader/);

    expect(await openSignedIn(browser, url, token, 'npm-start-browser-fallback.png')).toEqual([]);

    run.ctrlC();
    const exit = await run.exited;
    // The server shut down in order (jobs, store, data-dir lock) and said so: in its log, and one line here.
    expect(readFileSync(path.join(dataDir, 'logs', 'benchdesk.log'), 'utf8')).toMatch(/"msg":"shutting down"/);
    expect(run.output()).toMatch(/^benchdesk stopped \(its log: .*benchdesk\.log\)\.$/m);
    expect(run.output()).not.toMatch(/npm error|^\s+at /m);
    // A Ctrl-C'd npm script ends the way npm ends every one: npm's shell (dash) leaves by the
    // SIGINT it got, and npm re-raises it. Anything else (a non-zero code) is a failure.
    expect(exit.signal === 'SIGINT' || exit.code === 0, JSON.stringify(exit)).toBe(true);
    expect(existsSync(path.join(dataDir, 'store.lock'))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    // Nothing of the process group is left running.
    expect(() => process.kill(-(run.child.pid as number), 0)).toThrow(/ESRCH/);
  });

  it('npm run serve prints the browser URL with the token it was given', { timeout: 180_000 }, async () => {
    if (!browser) throw new Error('setup failed');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-npm-serve-'));
    dirs.push(dataDir);
    const port = await freePort();
    const token = randomBytes(24).toString('hex');
    const run = npm(['run', 'serve'], cleanEnv({ BENCHDESK_DATA_DIR: dataDir, BENCHDESK_PORT: String(port), SERVICE_API_TOKENS: `default:${token}` }));
    running.push(run);
    const [, url = ''] = await run.waitFor(/^Open the browser UI: (\S+)$/m, 120_000);
    expect(url).toBe(`http://127.0.0.1:${port}/ui/#token=${token}`);
    // Headless: no app token is created.
    expect(existsSync(path.join(dataDir, 'api-token'))).toBe(false);

    expect(await openSignedIn(browser, url, token, 'npm-run-serve-browser.png')).toEqual([]);

    run.ctrlC();
    await run.exited;
    expect(run.output()).toMatch(/^benchdesk stopped\.$/m);
  });
});
