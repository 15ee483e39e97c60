import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS_DIR, freePort, requireBuilt, startServer, type ServerProcess } from './support';

/**
 * Browser mode end to end: the real headless server (dist/main/server.js) serves the renderer at
 * /ui/ and the API at /v1 on one origin; Debian Chromium opens the UI with the token in the hash,
 * and the HTTP bridge must reach a healthy API.
 */
const CHROMIUM = process.env.BENCHDESK_CHROMIUM ?? '/usr/bin/chromium';

describe('browser mode (Debian Chromium + headless server)', () => {
  const token = randomBytes(24).toString('base64url');
  let dataDir = '';
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // Fail, never skip: CI installs Chromium, so a missing one is a broken environment.
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set BENCHDESK_CHROMIUM`);
    }
    requireBuilt(['dist/main/server.js', 'dist/renderer/index.html']);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-e2e-'));
    server = await startServer({
      BENCHDESK_HOST: '127.0.0.1',
      BENCHDESK_PORT: String(await freePort()),
      BENCHDESK_DATA_DIR: dataDir,
      SERVICE_API_TOKENS: `default:${token}`,
      BENCHDESK_SERVE_UI: '1',
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-quic'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows a healthy API over the HTTP bridge, with no console errors', async () => {
    if (!page || !server) throw new Error('setup failed');
    await page.goto(`${server.baseUrl}/ui/#token=${token}`);

    const status = page.locator('[data-testid="overview-api-state"]');
    try {
      await page.locator('[data-testid="overview-api-state"][data-state="ok"]').waitFor({ timeout: 15_000 });
    } catch (err) {
      const shown = await page.locator('[data-testid="overview-api"]').innerText().catch(() => '(no API panel)');
      throw new Error(`health never became ok. Panel: ${shown}\nConsole: ${consoleErrors.join('\n')}\nServer:\n${server.output()}`, { cause: err });
    }
    expect((await status.textContent())?.trim()).toBe('ok');
    // Browser mode talks to the page's own origin: that is the address shown for scripts.
    expect((await page.locator('[data-testid="overview-api-url"]').textContent())?.trim()).toBe(server.baseUrl);
    expect(await page.locator('[data-testid="overview-api"]').innerText()).toContain('enabled');

    // The token moved from the URL into sessionStorage.
    expect(page.url()).not.toContain(token);
    expect(await page.evaluate("sessionStorage.getItem('benchdesk.apiToken')")).toBe(token);

    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'browser-health.png'), fullPage: true });

    expect(consoleErrors).toEqual([]);
  });

  it('navigates to the Jobs page by its hash route and back', async () => {
    if (!page) throw new Error('setup failed');
    await page.locator('[data-testid="nav-jobs"]').click();
    await page.locator('[data-testid="page-jobs"]').waitFor({ timeout: 5_000 });
    expect(page.url()).toContain('#/jobs');
    expect(await page.locator('[data-testid="nav-jobs"]').getAttribute('aria-current')).toBe('page');
    await page.goBack();
    await page.locator('[data-testid="nav-overview"][aria-current="page"]').waitFor({ timeout: 5_000 });
    expect(consoleErrors).toEqual([]);
  });
});
