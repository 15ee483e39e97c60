import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, holderAlive, readProcInfo } from '../../src-main/store/data-dir-lock';
import { openJobStore } from '../../src-main/store/job-store';
import { memoryLogger, tempDataDir } from '../helpers/store';
import { DataDirLockedError } from '../../src-main/store/types';

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
    expect(logger.warnings()).toContain(`taking over the data-dir lock of process ${pid}, which is no longer running`);
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

  it.runIf(process.platform === 'linux')('records its own start time and boot id with the pid (Linux)', async () => {
    const d = await dir();
    const lock = acquireDataDirLock(d, memoryLogger(), { releaseOnExit: false });
    const holder = JSON.parse(await fsp.readFile(lock.path, 'utf8')) as { proc_start?: string; boot_id?: string };
    const own = readProcInfo('self');
    expect(own).not.toBe('gone');
    expect(holder.proc_start).toBe(own && own !== 'gone' ? own.startTime : 'missing');
    expect(holder.boot_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fsp.stat(lock.path)).mode & 0o777).toBe(0o600);
    lock.release();
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose pid now belongs to another process (reused pid)', async () => {
    const d = await dir();
    const lockFile = path.join(d, 'store.lock');
    // pid 1 is alive, but it did not start at tick 1 of this boot: the recorded holder is gone.
    const info = readProcInfo(1);
    const wrongStart = info && info !== 'gone' ? String(Number(info.startTime) + 12345) : '1';
    await fsp.writeFile(lockFile, JSON.stringify({ pid: 1, hostname: os.hostname(), started_at: '', proc_start: wrongStart }));
    const logger = memoryLogger();
    const lock = acquireDataDirLock(d, logger, { releaseOnExit: false });
    expect(logger.warnings()).toContain('taking over the data-dir lock of process 1, which is no longer running');
    lock.release();

    // The same pid with its real start time is the live holder.
    await fsp.writeFile(lockFile, JSON.stringify({ pid: 1, hostname: os.hostname(), started_at: '', proc_start: info && info !== 'gone' ? info.startTime : '' }));
    expect(() => acquireDataDirLock(d, memoryLogger(), { releaseOnExit: false })).toThrow(DataDirLockedError);
    // A lock from before a reboot names a process of another boot.
    expect(holderAlive({ pid: 1, boot_id: '00000000-0000-0000-0000-000000000000' })).toBe(false);
  });

  it.runIf(process.platform === 'linux')('takes over a lock held by a zombie (exited, not reaped)', async () => {
    const d = await dir();
    // sh starts a child, then becomes `sleep 5`, which never reaps it: the child stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombiePid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (b: Buffer) => resolve(b.toString().trim()))));
      let info = readProcInfo(zombiePid);
      for (let i = 0; i < 100 && !(info && info !== 'gone' && info.zombie); i++) {
        await new Promise((r) => setTimeout(r, 20));
        info = readProcInfo(zombiePid);
      }
      expect(info).toMatchObject({ zombie: true });
      expect(() => process.kill(zombiePid, 0)).not.toThrow(); // a plain pid check thinks it is alive
      await fsp.writeFile(path.join(d, 'store.lock'), JSON.stringify({ pid: zombiePid, hostname: os.hostname(), started_at: '' }));
      const logger = memoryLogger();
      const lock = acquireDataDirLock(d, logger, { releaseOnExit: false });
      expect(logger.warnings()).toContain(`taking over the data-dir lock of process ${zombiePid}, which is no longer running`);
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
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
