import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { API_TOKEN_FILE, SettingsStore } from '../../src-main/app/settings';
import { createBenchdesk, type Benchdesk } from '../../src-main/composition/start';
import { injectDiskFull } from '../helpers/disk-full';

/**
 * Settings writes and token rotation on a full data dir: 507 naming the data dir (not a 500), the
 * old values and token still in force, and no temporary file left behind. The injected fault
 * covers token rotation everywhere; a real 4 MB tmpfs (where mounting is allowed) covers
 * settings.json, whose library writes through file handles the injection cannot reach.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(dataDir: string): Promise<{ bd: Benchdesk; token: string }> {
  const { token } = await new SettingsStore(dataDir).ensureApiToken();
  const bd = await createBenchdesk({ dataDir, env: { BENCHDESK_SHUTDOWN_GRACE_S: '0' }, logger: false, port: 0 });
  cleanups.push(() => bd.close());
  return { bd, token };
}

async function call(bd: Benchdesk, token: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await bd.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
}

const leftovers = async (dir: string): Promise<string[]> => (await fsp.readdir(dir)).filter((f) => f.includes('.tmp'));

describe('settings on a full disk (injected)', () => {
  it('token rotation answers 507, keeps the old token and its file, and leaves no *.tmp', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'benchdesk-full-settings-'));
    cleanups.push(() => fsp.rm(dir, { recursive: true, force: true }));
    const disk = await injectDiskFull(dir);
    cleanups.push(() => disk.restore());
    const { bd, token } = await start(dir);
    const fileBefore = await fsp.readFile(path.join(dir, API_TOKEN_FILE), 'utf8');

    disk.full = true;
    const rotated = await call(bd, token, 'POST', '/v1/settings/api-token/rotate', {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(507);
    expect(rotated.body).toMatchObject({ code: 'insufficient_storage' });
    expect(String(rotated.body.detail)).toContain(dir);
    expect(await leftovers(dir)).toEqual([]);
    disk.full = false;

    expect(await fsp.readFile(path.join(dir, API_TOKEN_FILE), 'utf8')).toBe(fileBefore);
    expect((await call(bd, token, 'GET', '/v1/settings')).status).toBe(200);
    const again = await call(bd, token, 'POST', '/v1/settings/api-token/rotate', {});
    expect(again.status).toBe(200);
    expect(await leftovers(dir)).toEqual([]);
  });
});

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'benchdesk-tmpfs-settings-'));
const mounted =
  process.platform === 'linux' && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' }).status === 0;
if (!mounted) console.log('disk-full-settings: the real-disk part is skipped, cannot mount a tmpfs here (needs root on Linux)');
afterAll(async () => {
  if (mounted) spawnSync('umount', [mountPoint], { stdio: 'ignore' });
  await fsp.rm(mountPoint, { recursive: true, force: true });
});

describe.runIf(mounted)('settings on a real full disk (tmpfs)', () => {
  it('POST /v1/settings and token rotation answer 507 with nothing changed and no temporary file, then work once space is freed', async () => {
    const dataDir = path.join(mountPoint, 'data');
    const { bd, token } = await start(dataDir);
    const settingsBefore = await fsp.readFile(path.join(dataDir, 'settings.json'), 'utf8');
    // Fill the disk: the write takes what fits, then fails.
    const filler = path.join(mountPoint, 'filler');
    expect(() => fs.writeFileSync(filler, Buffer.alloc(8 * 1024 * 1024, 1))).toThrow(/ENOSPC/);

    const updated = await call(bd, token, 'POST', '/v1/settings', { concurrency: 2, default_agent: 'holmes' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(507);
    expect(updated.body).toMatchObject({ code: 'insufficient_storage' });
    const rotated = await call(bd, token, 'POST', '/v1/settings/api-token/rotate', {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(507);
    expect(await leftovers(dataDir)).toEqual([]);
    expect(await fsp.readFile(path.join(dataDir, 'settings.json'), 'utf8')).toBe(settingsBefore);
    expect((await call(bd, token, 'GET', '/v1/settings')).body).toMatchObject({ settings: { concurrency: 4, default_agent: null } });

    await fsp.rm(filler);
    expect((await call(bd, token, 'POST', '/v1/settings', { concurrency: 2 })).status).toBe(200);
    expect((await call(bd, token, 'POST', '/v1/settings/api-token/rotate', {})).status).toBe(200);
    expect(await leftovers(dataDir)).toEqual([]);
  });
});
