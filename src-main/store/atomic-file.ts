import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Job records can hold backend credentials: the data dir is 0700 and every file in it 0600. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

let tempCounter = 0;
// Random per process: two processes (a pid reused after a crash, a second benchdesk pointed at the
// same dir by mistake) never pick the same temporary name, and the counter keeps a process's own apart.
const TEMP_STAMP = randomBytes(4).toString('hex');

/**
 * A temporary name beside `filePath` that no other writer uses: concurrent writes of one file
 * (four token rotations at once) must not share a temp file, or one renames another's half-written copy.
 */
export function uniqueTempPath(filePath: string): string {
  tempCounter = (tempCounter + 1) % 1_000_000_000;
  return `${filePath}.${process.pid}.${TEMP_STAMP}.${tempCounter}.tmp`;
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
 * Appends to a file opened for appending; on a failed write (a full disk can leave a partial line)
 * cuts the file back to where it was, so a retry appends whole lines only.
 */
export async function appendWithRollback(fh: fsp.FileHandle, size: number, data: Buffer): Promise<number> {
  try {
    await writeAll(fh, data);
    return size + data.length;
  } catch (err) {
    await fh.truncate(size);
    throw err;
  }
}

/**
 * Temp file in the same directory + optional fsync + rename: a reader sees the old or the new file,
 * never a torn one. fsync:false is for files the journal already covers (they are fsynced in bulk
 * at the next checkpoint, which is what makes group commit pay off).
 */
export async function writeFileAtomic(filePath: string, data: string | Buffer, options: { fsync: boolean }): Promise<void> {
  const tmp = uniqueTempPath(filePath);
  try {
    // Callback fs, not FileHandle: one open+write+close round without a FileHandle object per file.
    // Profiled on the durable POST path, the FileHandle version cost ~2x the main-thread time.
    await new Promise<void>((resolve, reject) =>
      fs.writeFile(tmp, data, { mode: FILE_MODE, flush: options.fsync }, (err) => (err ? reject(err) : resolve())),
    );
    await new Promise<void>((resolve, reject) => fs.rename(tmp, filePath, (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * writeFileAtomic for a document written piece by piece (a snapshot of tens of MB is never one
 * string): temp file, every piece written in turn, fsync, rename. Answers the bytes written.
 */
export async function writeFileAtomicPieces(filePath: string, pieces: Iterable<string> | AsyncIterable<string>): Promise<number> {
  const tmp = uniqueTempPath(filePath);
  let bytes = 0;
  try {
    const fh = await fsp.open(tmp, 'w', FILE_MODE);
    try {
      for await (const piece of pieces) {
        const data = Buffer.from(piece);
        await writeAll(fh, data);
        bytes += data.length;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, filePath);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  return bytes;
}

/**
 * Replaces a file's content in place (truncate and write, creating it 0600), without fsync. Only
 * for files a write-ahead journal covers: a crash in the middle leaves a torn file, and the replay
 * of the journal, which still holds this content until a checkpoint has fsynced the file, writes
 * it again. It creates no temp file: on ext4 a new inode per write (temp + rename) was the largest
 * cost of the store's background writes (the allocator searching past recently freed inodes).
 */
export function overwriteJournaledFile(filePath: string, data: string | Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => fs.writeFile(filePath, data, { mode: FILE_MODE }, (err) => (err ? reject(err) : resolve())));
}

/** Appends (creating the file 0600) with callback fs, like writeFileAtomic. */
export function appendFileFast(filePath: string, data: string): Promise<void> {
  return new Promise<void>((resolve, reject) => fs.appendFile(filePath, data, { mode: FILE_MODE }, (err) => (err ? reject(err) : resolve())));
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

/** The file system is full or over quota: the write failed but nothing else is wrong. */
export function isOutOfSpace(err: unknown): boolean {
  return isErrno(err, 'ENOSPC') || isErrno(err, 'EDQUOT');
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
