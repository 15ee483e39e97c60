import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isErrno } from './atomic-file';
import { LAYOUT } from './layout';
import { DataDirLockedError, type StoreLogger } from './types';

type LockContent = { pid: number; hostname: string; started_at: string };

export type DataDirLock = {
  readonly path: string;
  /** Unlinks the lock file if it is still ours; safe to call twice. */
  release(): void;
};

function readHolder(lockPath: string): LockContent | undefined {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
    if (typeof v !== 'object' || v === null) return undefined;
    const { pid, hostname, started_at } = v as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || typeof hostname !== 'string') return undefined;
    return { pid, hostname, started_at: typeof started_at === 'string' ? started_at : '' };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to another user, which still means alive.
    return !isErrno(err, 'ESRCH');
  }
}

/**
 * One writer per data dir: `store.lock` created with O_EXCL holds {pid, hostname, started_at}. A
 * lock left by a dead process (or unreadable garbage) is taken over with a warn line. A holder on
 * another host cannot be checked, so it counts as live.
 */
export function acquireDataDirLock(dataDir: string, logger: StoreLogger, options: { releaseOnExit?: boolean } = {}): DataDirLock {
  const lockPath = path.join(dataDir, LAYOUT.lockFile);
  const content: LockContent = { pid: process.pid, hostname: os.hostname(), started_at: new Date().toISOString() };
  const body = `${JSON.stringify(content)}\n`;
  // Two rounds: a takeover can race with another process doing the same; the loser sees EEXIST again.
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(lockPath, 'wx', 0o644);
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) throw err;
      const holder = readHolder(lockPath);
      if (holder && (holder.hostname !== content.hostname || isAlive(holder.pid))) {
        throw new DataDirLockedError(dataDir, holder.pid);
      }
      logger.warn(holder ? `taking over the data-dir lock of dead process ${holder.pid}` : 'taking over an unreadable data-dir lock file', {
        lock: lockPath,
        holder_pid: holder?.pid ?? null,
        holder_started_at: holder?.started_at ?? null,
      });
      try {
        fs.unlinkSync(lockPath);
      } catch (unlinkErr) {
        if (!isErrno(unlinkErr, 'ENOENT')) throw unlinkErr;
      }
      continue;
    }
    try {
      fs.writeSync(fd, body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return makeLock(lockPath, body, options.releaseOnExit ?? true);
  }
  const holder = readHolder(lockPath);
  throw new DataDirLockedError(dataDir, holder?.pid ?? 0);
}

function makeLock(lockPath: string, body: string, releaseOnExit: boolean): DataDirLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      // Only remove the file if it is still ours (someone may have taken over a lock we lost).
      if (fs.readFileSync(lockPath, 'utf8') === body) fs.unlinkSync(lockPath);
    } catch {
      // Already gone: nothing to release.
    }
  };
  // 'exit' handlers may only do synchronous work, which is all release() does.
  if (releaseOnExit) process.on('exit', release);
  return { path: lockPath, release };
}
