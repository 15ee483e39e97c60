import fs from 'node:fs';
import fsp from 'node:fs/promises';

let tempCounter = 0;

function tempPathFor(filePath: string): string {
  tempCounter = (tempCounter + 1) % 1_000_000_000;
  return `${filePath}.${process.pid}.${tempCounter}.tmp`;
}

/** Writes every byte (a single write() may be short on a full disk). */
export async function writeAll(fh: fsp.FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off);
    off += bytesWritten;
  }
}

/**
 * Temp file in the same directory + optional fsync + rename: a reader sees the old or the new file,
 * never a torn one. fsync:false is for files the journal already covers (they are fsynced in bulk
 * at the next checkpoint, which is what makes group commit pay off).
 */
export async function writeFileAtomic(filePath: string, data: string | Buffer, options: { fsync: boolean }): Promise<void> {
  const tmp = tempPathFor(filePath);
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(tmp, 'w', 0o644);
    await writeAll(fh, typeof data === 'string' ? Buffer.from(data) : data);
    if (options.fsync) await fh.sync();
    await fh.close();
    fh = undefined;
    await fsp.rename(tmp, filePath);
  } catch (err) {
    await fh?.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** fsync by path (file or directory); a file that is gone has nothing left to make durable. */
export async function fsyncPath(p: string): Promise<void> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(p, 'r');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    // Some platforms (Windows) refuse fsync on a directory handle: nothing more can be done there.
    if (!isErrno(err, 'EISDIR') && !isErrno(err, 'EPERM') && !isErrno(err, 'EINVAL')) throw err;
  } finally {
    await fh.close();
  }
}

export function fsyncPathSync(p: string): void {
  let fd: number;
  try {
    fd = fs.openSync(p, 'r');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    if (!isErrno(err, 'EISDIR') && !isErrno(err, 'EPERM') && !isErrno(err, 'EINVAL')) throw err;
  } finally {
    fs.closeSync(fd);
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

/** Runs fn over items with at most `limit` in flight (bounded file descriptors and thread-pool use). */
export async function forEachLimit<T>(items: Iterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.iterator]();
  let failed: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    for (let next = it.next(); !next.done && !failed; next = it.next()) {
      try {
        await fn(next.value);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  if (failed) throw failed.err;
}
