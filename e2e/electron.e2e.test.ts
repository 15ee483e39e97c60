import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS_DIR, ROOT, freePort } from './support';

/**
 * Electron mode end to end, where an Electron binary exists. Never `require('electron')` here:
 * in plain Node that starts a download. The binary's location is read from path.txt instead.
 */
function findElectron(): { binary: string } | { reason: string } {
  const pkgDir = path.join(ROOT, 'node_modules', 'electron');
  const pathTxt = path.join(pkgDir, 'path.txt');
  if (!existsSync(pathTxt)) return { reason: 'no Electron binary (node_modules/electron/path.txt is absent; it is downloaded on first use, which needs the network)' };
  const binary = path.join(pkgDir, 'dist', readFileSync(pathTxt, 'utf8').trim());
  if (!existsSync(binary)) return { reason: `Electron binary ${binary} is missing` };
  const built = ['dist/main/electron-main.js', 'dist/main/preload.cjs', 'dist/renderer/index.html'];
  const missing = built.filter((f) => !existsSync(path.join(ROOT, f)));
  if (missing.length > 0) return { reason: `build output missing: ${missing.join(', ')} (run npm run build)` };
  return { binary };
}

const found = findElectron();
const skipReason = 'reason' in found ? found.reason : null;
if (skipReason) console.log(`electron e2e skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)(skipReason ? `electron app (skipped: ${skipReason})` : 'electron app', () => {
  let dataDir = '';
  let app: ElectronApplication | undefined;
  let page: Page | undefined;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (!('binary' in found)) return;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-electron-e2e-'));
    app = await electron.launch({
      executablePath: found.binary,
      args: [ROOT],
      cwd: ROOT,
      env: {
        ...process.env,
        BENCHDESK_DATA_DIR: dataDir,
        BENCHDESK_HOST: '127.0.0.1',
        BENCHDESK_PORT: String(await freePort()),
      } as Record<string, string>,
    });
    page = await app.firstWindow();
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  });

  afterAll(async () => {
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows a healthy API through the preload bridge', async () => {
    if (!page) throw new Error('setup failed');
    await page.locator('[data-testid="health-status"][data-state="ok"]').waitFor({ timeout: 20_000 });
    expect((await page.locator('[data-testid="health-transport"]').textContent())?.trim()).toBe('electron');
    expect((await page.locator('[data-testid="health-auth"]').textContent()) ?? '').toContain('enabled');

    // One named method per operation, and no generic passthrough or Node in the page.
    const keys = (await page.evaluate('Object.keys(window.api).sort()')) as string[];
    expect(keys).toContain('getHealth');
    expect(keys).not.toContain('invoke');
    expect(await page.evaluate('typeof require')).toBe('undefined');
    expect(await page.evaluate('typeof process')).toBe('undefined');

    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'electron-health.png') });
    expect(consoleErrors).toEqual([]);
  });
});
