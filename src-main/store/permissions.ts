import fsp from 'node:fs/promises';
import path from 'node:path';
import { DIR_MODE, FILE_MODE, isErrno } from './atomic-file';
import type { StoreLogger } from './types';

/**
 * Job records, secrets and settings can hold credentials: the data dir is 0700 and everything in
 * it 0600 (dirs 0700). New files are created that way; a data dir left by an older version (0755
 * with 0644 files) is tightened once here. The dir's own mode says whether that already happened,
 * so a normal start costs one stat, not a walk of every job file.
 */
export async function tightenDataDir(dataDir: string, logger: StoreLogger): Promise<void> {
  if (process.platform === 'win32') return; // POSIX modes mean nothing there (ACLs of the profile apply)
  const st = await fsp.stat(dataDir);
  if ((st.mode & 0o077) === 0) return;
  const changed = await tightenTree(dataDir);
  await fsp.chmod(dataDir, DIR_MODE);
  logger.warn(`tightened the data dir's permissions to owner-only (dir 0700, files 0600): ${changed} entr${changed === 1 ? 'y' : 'ies'} changed`, {
    data_dir: dataDir,
    previous_mode: (st.mode & 0o777).toString(8),
  });
}

async function tightenTree(dir: string): Promise<number> {
  let changed = 0;
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return 0;
    throw err;
  }
  for (const entry of entries) {
    const p = path.join(dir, entry.name);
    // Symlinks are left alone: chmod would follow them out of the data dir.
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      changed += await tightenTree(p);
      changed += await chmodIfLoose(p, DIR_MODE);
    } else if (entry.isFile()) {
      changed += await chmodIfLoose(p, FILE_MODE);
    }
  }
  return changed;
}

async function chmodIfLoose(p: string, mode: number): Promise<number> {
  try {
    const st = await fsp.lstat(p);
    if ((st.mode & 0o077) === 0) return 0;
    // Keep the owner's bits (an executable stays executable for its owner), drop group and other.
    await fsp.chmod(p, (st.mode & 0o700) | (mode & 0o700));
    return 1;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return 0;
    throw err;
  }
}
