import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startHarness, type Harness, type HarnessOptions } from '../test/workflows/harness';
import { ROOT, requireBuilt } from './support';

/**
 * Browser-mode UI tests: the real product (startBenchdesk: store, engine, HTTP API, the built
 * renderer at /ui/) listening on 127.0.0.1, wired to the local fakes (Vast.ai, Ollama,
 * Kubernetes), driven from Debian Chromium with the API token in the URL hash.
 */
export const CHROMIUM = process.env.BENCHDESK_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.join(ROOT, 'screenshots');

export type UiServer = { h: Harness; baseUrl: string; token: string; close(): Promise<void> };

export async function startUiServer(options: HarnessOptions = {}): Promise<UiServer> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set BENCHDESK_CHROMIUM`);
  requireBuilt(['dist/renderer/index.html']);
  const token = randomBytes(24).toString('base64url');
  const h = await startHarness({
    start: true,
    ...options,
    // The pages record the fake cluster now: its story ends now too, as a live cluster's would.
    ...(options.k8s === true ? { k8s: { liveClock: true } } : {}),
    env: { SERVICE_API_AUTH_DISABLED: '', SERVICE_API_TOKENS: `default:${token}`, ...options.env },
    extra: { uiDir: path.join(ROOT, 'dist', 'renderer'), port: 0, host: '127.0.0.1', ...options.extra },
  });
  const address = h.bd.app.server.address();
  if (!address || typeof address !== 'object') throw new Error('server is not listening');
  return { h, baseUrl: `http://127.0.0.1:${address.port}`, token, close: () => h.close() };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-quic'] });
}

export type UiPage = { context: BrowserContext; page: Page; errors: string[] };

/** A tab signed in to `server` (token in the hash → sessionStorage), collecting console errors. */
export async function openApp(browser: Browser, server: UiServer, colorScheme: 'light' | 'dark' = 'light'): Promise<UiPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    // A failed load names its URL: "404 (Not Found)" alone does not say what was missing.
    if (msg.type() === 'error') errors.push(msg.location().url && msg.text().startsWith('Failed to load resource') ? `${msg.text()} (${msg.location().url})` : msg.text());
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  await page.goto(`${server.baseUrl}/ui/#token=${server.token}`);
  await page.locator('[data-testid="app-ready"]').waitFor();
  return { context, page, errors };
}

/** Client-side navigation to a hash route. */
export async function go(page: Page, route: string): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
}

/** Full-page screenshots of the current page in the light and the dark system theme. */
export async function shootBothThemes(page: Page, name: string, settle = 400): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(settle);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Calls the server's API with the token (test set-up that is not the flow under test). */
export async function apiCall(server: UiServer, method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** One element of the page, in both themes (a close look at a panel a full-page shot shows small). */
export async function shootElementBothThemes(locator: Locator, name: string, settle = 150): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const page = locator.page();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(settle);
    await locator.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
