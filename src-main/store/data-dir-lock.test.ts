import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock } from './data-dir-lock';
import { openJobStore } from './job-store';
import { memoryLogger, tempDataDir } from './test-helpers';
import { DataDirLockedError } from './types';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

async function dir(): Promise<string> {
  const d = await tempDataDir('benchdesk-lock-');
  dirs.push(d);
  return d;
}

/** A pid that certainly belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

describe('data-dir lock', () => {
  it('lets one store at a time open a data dir and releases on close', async () => {
    const d = await dir();
    const first = await openJobStore({ dataDir: d, logger: memoryLogger(), releaseLockOnExit: false });
    const lockFile = path.join(d, 'store.lock');
    const holder = JSON.parse(await fsp.readFile(lockFile, 'utf8')) as { pid: number; hostname: string; started_at: string };
    expect(holder).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(Number.isNaN(Date.parse(holder.started_at))).toBe(false);

    const second = openJobStore({ dataDir: d, logger: memoryLogger(), releaseLockOnExit: false });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toMatchObject({ holderPid: process.pid, dataDir: d });

    await first.close();
    expect(fs.existsSync(lockFile)).toBe(false);
    const third = await openJobStore({ dataDir: d, logger: memoryLogger(), releaseLockOnExit: false });
    await third.close();
  });

  it('takes over a lock left by a dead process, with a warning', async () => {
    const d = await dir();
    const pid = await deadPid();
    await fsp.writeFile(path.join(d, 'store.lock'), JSON.stringify({ pid, hostname: os.hostname(), started_at: new Date().toISOString() }));
    const logger = memoryLogger();
    const store = await openJobStore({ dataDir: d, logger, releaseLockOnExit: false });
    expect(logger.warnings()).toContain(`taking over the data-dir lock of dead process ${pid}`);
    const holder = JSON.parse(await fsp.readFile(path.join(d, 'store.lock'), 'utf8')) as { pid: number };
    expect(holder.pid).toBe(process.pid);
    await store.close();
  });

  it('takes over a garbage lock file, and refuses a live holder on this host', async () => {
    const d = await dir();
    const lockFile = path.join(d, 'store.lock');
    await fsp.writeFile(lockFile, 'not json at all');
    const logger = memoryLogger();
    const lock = acquireDataDirLock(d, logger, { releaseOnExit: false });
    expect(logger.warnings()).toContain('taking over an unreadable data-dir lock file');
    lock.release();
    expect(fs.existsSync(lockFile)).toBe(false);

    // pid 1 is alive on any Unix host (EPERM for unprivileged users still means alive).
    await fsp.writeFile(lockFile, JSON.stringify({ pid: 1, hostname: os.hostname(), started_at: '' }));
    expect(() => acquireDataDirLock(d, memoryLogger(), { releaseOnExit: false })).toThrow(DataDirLockedError);
    expect(fs.existsSync(lockFile)).toBe(true);
  });

  it('releases in a process exit handler when asked', async () => {
    const d = await dir();
    const before = process.listenerCount('exit');
    const lock = acquireDataDirLock(d, memoryLogger(), { releaseOnExit: true });
    expect(process.listenerCount('exit')).toBe(before + 1);
    process.listeners('exit').at(-1)?.call(process, 0);
    expect(fs.existsSync(path.join(d, 'store.lock'))).toBe(false);
    expect(process.listenerCount('exit')).toBe(before);
    lock.release();
  });
});
