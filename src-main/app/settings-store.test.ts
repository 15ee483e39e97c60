import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ZodError } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_SETTINGS_DEFAULTS } from '../../shared';
import { API_TOKEN_FILE, SEALED_BACKEND_URL_FILE, SettingsStore, sha256Hex } from './settings';

/** The Settings page's values and the app token in settings.json (a conf / electron-store file). */

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-settings-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fileJson = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(path.join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;

describe('SettingsStore: the Settings page values', () => {
  it('answers the defaults for an empty data dir', () => {
    const s = new SettingsStore(dir);
    expect(s.appSettings()).toEqual(APP_SETTINGS_DEFAULTS);
    expect(s.storedAppKeys()).toEqual([]);
  });

  it('applies a partial update, reports what changed, and keeps it across instances (plain JSON file)', async () => {
    const s = new SettingsStore(dir);
    const { settings, changed } = s.updateAppSettings({ concurrency: 2, default_backend_url: 'http://127.0.0.1:11434', spend_confirm_threshold_usd: 1.5 });
    expect(changed.sort()).toEqual(['concurrency', 'default_backend_url', 'spend_confirm_threshold_usd']);
    expect(settings.concurrency).toBe(2);
    expect(settings.default_agent).toBeNull();
    // A second store on the same dir (the desktop app's electron-store, the CLI) reads the same values.
    expect(new SettingsStore(dir).appSettings()).toEqual(settings);
    expect(await fileJson()).toMatchObject({ concurrency: 2, default_backend_url: 'http://127.0.0.1:11434', spend_confirm_threshold_usd: 1.5 });
    // The same values again change nothing.
    expect(s.updateAppSettings({ concurrency: 2 }).changed).toEqual([]);
  });

  it('null resets a key to its default and removes it from the file', async () => {
    const s = new SettingsStore(dir);
    s.updateAppSettings({ default_max_cost_usd: 5, default_agent: 'holmes' });
    expect(s.storedAppKeys().sort()).toEqual(['default_agent', 'default_max_cost_usd']);
    const { settings, changed } = s.updateAppSettings({ default_max_cost_usd: null });
    expect(changed).toEqual(['default_max_cost_usd']);
    expect(settings.default_max_cost_usd).toBeNull();
    expect(await fileJson()).not.toHaveProperty('default_max_cost_usd');
    expect(s.storedAppKeys()).toEqual(['default_agent']);
  });

  it('rejects invalid values and unknown keys, leaving the file untouched', async () => {
    const s = new SettingsStore(dir);
    s.updateAppSettings({ concurrency: 3 });
    const before = await fileJson();
    for (const bad of [{ concurrency: 0 }, { concurrency: 2.5 }, { concurrency: '4' }, { default_backend_url: 'ftp://x' }, { spend_confirm_threshold_usd: -1 }, { default_agent: 'Bad Name' }, { nope: 1 }]) {
      expect(() => s.updateAppSettings(bad), JSON.stringify(bad)).toThrow(ZodError);
    }
    expect(await fileJson()).toEqual(before);
  });

  it('keeps keys it does not manage (written by the desktop app) when updating', async () => {
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ window_bounds: { width: 800 }, concurrency: 6 }));
    const s = new SettingsStore(dir);
    expect(s.appSettings().concurrency).toBe(6);
    s.updateAppSettings({ default_agent: 'builtin' });
    expect(await fileJson()).toMatchObject({ window_bounds: { width: 800 }, concurrency: 6, default_agent: 'builtin' });
  });

  it('reports a hand-edited invalid value instead of silently resetting it', async () => {
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ concurrency: 'lots' }));
    expect(() => new SettingsStore(dir).appSettings()).toThrow(/settings file .* is invalid: concurrency/);
  });
});

describe('SettingsStore: the app API token', () => {
  it('rotation writes a new 0600 token file, stores only its hash, and stamps the time', async () => {
    const s = new SettingsStore(dir);
    const first = await s.ensureApiToken();
    expect(first.created).toBe(true);
    const file = path.join(dir, API_TOKEN_FILE);
    const second = await s.rotateApiToken();
    expect(second).not.toBe(first.token);
    expect((await readFile(file, 'utf8')).trim()).toBe(second);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const json = await fileJson();
    expect(json.api_token_sha256).toBe(sha256Hex(second));
    expect(JSON.stringify(json)).not.toContain(second);
    expect(typeof json.api_token_rotated_at).toBe('string');
    expect(await s.readApiToken()).toBe(second);
    expect(await s.ensureApiToken()).toEqual({ token: second, created: false });
  });

  it('does not show a token file that no longer matches the stored hash', async () => {
    const s = new SettingsStore(dir);
    await s.ensureApiToken();
    await writeFile(path.join(dir, API_TOKEN_FILE), 'edited-by-hand\n');
    expect(await s.readApiToken()).toBeUndefined();
  });
});

describe('SettingsStore: a default_backend_url with credentials', () => {
  it('a settings.json written with the password in plaintext is sealed when opened, and never shown', async () => {
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ default_backend_url: 'http://alice:pl4in-pass@10.0.0.5:11434' }));
    const s = new SettingsStore(dir);
    expect(await readFile(path.join(dir, 'settings.json'), 'utf8')).not.toContain('pl4in-pass');
    expect(s.appSettings().default_backend_url).toBe('http://alice:***@10.0.0.5:11434');
    expect(await readFile(path.join(dir, SEALED_BACKEND_URL_FILE), 'utf8')).toContain('pl4in-pass');
    expect(s.resolveBackendUrl('http://alice:***@10.0.0.5:11434')).toBe('http://alice:pl4in-pass@10.0.0.5:11434');
    // Any other URL is itself.
    expect(s.resolveBackendUrl('http://bob:***@10.0.0.5:11434')).toBe('http://bob:***@10.0.0.5:11434');
    // A URL without credentials unseals.
    s.updateAppSettings({ default_backend_url: 'http://10.0.0.6:11434' });
    await expect(stat(path.join(dir, SEALED_BACKEND_URL_FILE))).rejects.toThrow(/ENOENT/);
  });
});
