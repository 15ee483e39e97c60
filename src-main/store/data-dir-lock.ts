import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_MODE, isErrno } from './atomic-file';
import { LAYOUT } from './layout';
import { DataDirLockedError, type StoreLogger } from './types';

type LockContent = {
  pid: number;
  hostname: string;
  started_at: string;
  /**
   * Linux: the holder's start time (/proc/<pid>/stat field 22, clock ticks since boot) and the
   * boot id. A pid alone can be reused by an unrelated process after the holder died; pid + start
   * time + boot names one process for good.
   */
  proc_start?: string;
  boot_id?: string;
};

/** What /proc says about a pid: its start time and whether it is a zombie; undefined without /proc. */
export type ProcInfo = { startTime: string; zombie: boolean } | 'gone' | undefined;

export function readProcInfo(pid: number | 'self'): ProcInfo {
  if (process.platform !== 'linux') return undefined;
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    return isErrno(err, 'ENOENT') || isErrno(err, 'ESRCH') ? 'gone' : undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19]; // field 22 overall; fields[0] is field 3
  if (!state || !startTime) return undefined;
  return { startTime, zombie: state === 'Z' || state === 'X' };
}

function readBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** This process, as a lock or a lease names it (pid start time and boot id, where /proc has them). */
export function ownIdentity(): Pick<LockContent, 'proc_start' | 'boot_id'> {
  const info = readProcInfo('self');
  const bootId = readBootId();
  return info && info !== 'gone' ? { proc_start: info.startTime, ...(bootId ? { boot_id: bootId } : {}) } : {};
}

export type DataDirLock = {
  readonly path: string;
  /** Unlinks the lock file if it is still ours; safe to call twice. */
  release(): void;
};

function readHolder(lockPath: string): LockContent | undefined {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
    if (typeof v !== 'object' || v === null) return undefined;
    const { pid, hostname, started_at, proc_start, boot_id } = v as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || typeof hostname !== 'string') return undefined;
    return {
      pid,
      hostname,
      started_at: typeof started_at === 'string' ? started_at : '',
      ...(typeof proc_start === 'string' ? { proc_start } : {}),
      ...(typeof boot_id === 'string' ? { boot_id } : {}),
    };
  } catch {
    return undefined;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to another user, which still means alive.
    return !isErrno(err, 'ESRCH');
  }
}

/**
 * Whether the process that wrote the lock still runs. Where /proc exists, a zombie (exited, not yet
 * reaped) is dead, and a live pid whose start time or boot differs from the recorded one is another
 * process that reused the pid. Elsewhere only the pid can be checked.
 */
export function holderAlive(holder: Pick<LockContent, 'pid' | 'proc_start' | 'boot_id'>, bootId = readBootId()): boolean {
  if (holder.boot_id && bootId && holder.boot_id !== bootId) return false;
  const info = readProcInfo(holder.pid);
  if (info === 'gone') return false;
  if (info === undefined) return pidExists(holder.pid);
  if (info.zombie) return false;
  return holder.proc_start === undefined || holder.proc_start === info.startTime;
}

/**
 * One writer per data dir: `store.lock` created with O_EXCL holds {pid, hostname, started_at}. A
 * lock left by a dead process (or unreadable garbage) is taken over with a warn line. A holder on
 * another host cannot be checked, so it counts as live.
 */
export function acquireDataDirLock(dataDir: string, logger: StoreLogger, options: { releaseOnExit?: boolean } = {}): DataDirLock {
  const lockPath = path.join(dataDir, LAYOUT.lockFile);
  const content: LockContent = { pid: process.pid, hostname: os.hostname(), started_at: new Date().toISOString(), ...ownIdentity() };
  const body = `${JSON.stringify(content)}\n`;
  // Two rounds: a takeover can race with another process doing the same; the loser sees EEXIST again.
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(lockPath, 'wx', FILE_MODE);
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) throw err;
      const holder = readHolder(lockPath);
      if (holder && (holder.hostname !== content.hostname || holderAlive(holder))) {
        throw new DataDirLockedError(dataDir, holder.pid);
      }
      logger.warn(holder ? `taking over the data-dir lock of process ${holder.pid}, which is no longer running` : 'taking over an unreadable data-dir lock file', {
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
