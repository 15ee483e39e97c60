import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src-main/app/settings';
import type { DesktopStore } from '../../src-main/electron/desktop-store';

/**
 * The real electron-store wrapper of the desktop app (src-main/electron/desktop-store.ts) in plain
 * Node: electron-store imports the `electron` package, whose stub would download a binary; with
 * ELECTRON_OVERRIDE_DIST_PATH set it only returns a path, and electron-store then needs (and gets)
 * an absolute `cwd`. This proves the app and the headless server share one settings.json.
 */

const WINDOW = { x: 40, y: 30, width: 1300, height: 850, maximized: true, fullscreen: false };
const KEY = { ciphertext_b64: Buffer.from('sealed by safeStorage').toString('base64'), hint: '9xyz', saved_at: '2026-11-22T22:50:00.000Z' };

let dir: string;
let Desktop: typeof DesktopStore;
beforeAll(async () => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH = path.join(tmpdir(), 'benchdesk-no-electron-here');
  ({ DesktopStore: Desktop } = await import('../../src-main/electron/desktop-store'));
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-electron-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('DesktopStore (electron-store on the data dir)', () => {
  it('writes the desktop keys into the settings.json the server reads, leaving the server keys alone', async () => {
    const server = new SettingsStore(dir);
    server.updateAppSettings({ concurrency: 2 });
    const logged: string[] = [];
    const desktop = new Desktop(dir, (m) => logged.push(m));
    expect(desktop.path).toBe(path.join(dir, 'settings.json'));

    desktop.update({ window_state: WINDOW, marketplace_key: KEY });
    expect(desktop.read()).toEqual({ window_state: WINDOW, marketplace_key: KEY });
    expect(server.appSettings().concurrency).toBe(2);

    // The server writes after the app: both sides still see their own keys (no stale cache).
    server.updateAppSettings({ default_agent: 'k8sgpt' });
    expect(desktop.read().window_state).toEqual(WINDOW);
    desktop.update({ marketplace_key: null });
    expect(desktop.read()).toEqual({ window_state: WINDOW });
    expect(server.appSettings()).toMatchObject({ concurrency: 2, default_agent: 'k8sgpt' });

    // One file in conf's format (tab-indented JSON), owner-only.
    const text = await readFile(path.join(dir, 'settings.json'), 'utf8');
    expect(text).toMatch(/^\{\n\t"/);
    expect(Object.keys(JSON.parse(text) as Record<string, unknown>).sort()).toEqual(['concurrency', 'default_agent', 'window_state']);
    if (process.platform !== 'win32') expect((await stat(path.join(dir, 'settings.json'))).mode & 0o777).toBe(0o600);
    expect(logged).toEqual([]);
  });

  it('refuses to write a server key, and logs (not throws on) a broken desktop entry', async () => {
    const logged: string[] = [];
    const desktop = new Desktop(dir, (m) => logged.push(m));
    expect(() => desktop.update({ concurrency: 8 } as never)).toThrow(/not a desktop setting/);
    const server = new SettingsStore(dir);
    server.set({ window_state: { x: 'left' } } as never);
    expect(desktop.read()).toEqual({});
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/ignoring an invalid desktop entry \(window_state: /);
  });
});
