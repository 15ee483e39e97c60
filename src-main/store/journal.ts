import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { JobEvent, JobRecord } from '../../shared';
import { DIR_MODE, FILE_MODE, fsyncPath, isErrno, writeAll } from './atomic-file';
import { isRecord, toJsonl } from './jsonl';
import { LAYOUT, journalFilePath, journalGenOf } from './layout';
import { loadLogFile } from './log-file';
import type { Quarantine } from './quarantine';
import { parseIdempotency, parseStoredEvent, parseStoredRecord } from './records';
import type { IdempotencyRecord } from './types';

/**
 * Write-ahead journal entries. Each carries the full new state (not a patch), so replaying an entry
 * twice, or over a file that already has it, is harmless.
 */
export type JournalEntry =
  | { t: 'job'; rec: JobRecord; ord: number; idem?: IdempotencyRecord }
  | { t: 'ev'; ev: JobEvent };

export function parseJournalEntry(value: unknown): JournalEntry | undefined {
  if (!isRecord(value)) return undefined;
  if (value.t === 'ev') {
    const ev = parseStoredEvent(value.ev);
    return ev ? { t: 'ev', ev } : undefined;
  }
  if (value.t === 'job' && typeof value.ord === 'number' && Number.isSafeInteger(value.ord)) {
    const rec = parseStoredRecord(value.rec);
    if (!rec) return undefined;
    if (value.idem === undefined) return { t: 'job', rec, ord: value.ord };
    const idem = parseIdempotency(value.idem);
    return idem ? { t: 'job', rec, ord: value.ord, idem } : undefined;
  }
  return undefined;
}

/** Journal files left by the previous process (a crash, or a checkpoint it did not finish), oldest first. */
export async function listJournalGens(dataDir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await fsp.readdir(path.join(dataDir, LAYOUT.journalDir));
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
  return names
    .map(journalGenOf)
    .filter((g): g is number => g !== undefined)
    .sort((a, b) => a - b);
}

/** Reads one journal file, setting a torn tail (crash mid-append) or corrupt lines aside. */
export async function readJournal(dataDir: string, gen: number, quarantine: Quarantine): Promise<JournalEntry[]> {
  const loaded = await loadLogFile(journalFilePath(dataDir, gen), parseJournalEntry, quarantine, `journal ${gen}`);
  return loaded.values;
}

/**
 * Whether the journal is opened with O_DSYNC, where the platform has it (Windows has not): each
 * write is then durable when it returns, data and file size, as a write followed by fdatasync is,
 * and a batch costs one trip through libuv's thread pool instead of two.
 */
export const JOURNAL_SYNCS_ON_WRITE = typeof fs.constants.O_DSYNC === 'number' && fs.constants.O_DSYNC !== 0;
const JOURNAL_OPEN_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | (JOURNAL_SYNCS_ON_WRITE ? fs.constants.O_DSYNC : 0);

/**
 * The append side: one durable write per batch of entries (an O_DSYNC write, or a write and an fdatasync). Rotates to a new generation file
 * once the current one passes `rotateBytes`, handing the old file to `onRotated` (the checkpoint
 * deletes it once everything it covers is fsynced in its own file).
 */
export class JournalWriter {
  private bytes = 0;
  /** Size of the last batch a write refused (a full disk), for the space probe. */
  lastRefusedBytes = 0;

  private constructor(
    private readonly dataDir: string,
    private gen: number,
    private fh: fsp.FileHandle,
    private readonly rotateBytes: number,
  ) {}

  static async open(dataDir: string, gen: number, rotateBytes: number): Promise<JournalWriter> {
    const fh = await JournalWriter.create(dataDir, gen);
    return new JournalWriter(dataDir, gen, fh, rotateBytes);
  }

  private static async create(dataDir: string, gen: number): Promise<fsp.FileHandle> {
    await fsp.mkdir(path.join(dataDir, LAYOUT.journalDir), { recursive: true, mode: DIR_MODE });
    const fh = await fsp.open(journalFilePath(dataDir, gen), JOURNAL_OPEN_FLAGS, FILE_MODE);
    // The new file's directory entry must be durable before anything in it is acknowledged.
    await fsyncPath(path.join(dataDir, LAYOUT.journalDir));
    return fh;
  }

  get currentPath(): string {
    return journalFilePath(this.dataDir, this.gen);
  }

  /**
   * Durable when it resolves. Returns the path of a file rotated out, if this write filled one.
   * A failed write or sync (a full disk) cuts the file back to its last durable length, so the
   * journal does not keep a partial batch and the writer stays usable; only if that cut fails is
   * the error a RollbackFailedError (the file's tail is then unknown and the store must reopen).
   */
  async write(entries: readonly JournalEntry[]): Promise<string | undefined> {
    const buf = Buffer.from(toJsonl(entries));
    try {
      await this.durableAppend(buf);
    } catch (err) {
      this.lastRefusedBytes = buf.length;
      throw err;
    }
    this.bytes += buf.length;
    if (this.bytes < this.rotateBytes) return undefined;
    const old = this.currentPath;
    const next = await JournalWriter.create(this.dataDir, this.gen + 1);
    await this.fh.close();
    this.fh = next;
    this.gen++;
    this.bytes = 0;
    return old;
  }

  /**
   * Whether a batch of `size` bytes would go through now: appends that many blank lines to the
   * journal (the same file, flags and sync as a batch; readers skip blank lines), then cuts the
   * file back to its durable length. A real write of a real batch's size, not a free-space reading,
   * so a disk that takes a small file but not the batch still counts as full.
   */
  async probe(size: number): Promise<void> {
    await this.durableAppend(Buffer.alloc(size, 0x0a));
    try {
      await this.fh.truncate(this.bytes);
    } catch {
      // The blank lines stay (readers skip them): count them, so a later rollback cuts nothing durable.
      this.bytes += size;
      return;
    }
    // Best effort, as after a refused write: the next batch's sync makes the shorter length durable.
    await this.fh.datasync().catch(() => undefined);
  }

  /**
   * A failed write or sync cuts the file back to its last durable length; only if that cut fails
   * is the error a RollbackFailedError.
   */
  private async durableAppend(buf: Buffer): Promise<void> {
    try {
      await writeAll(this.fh, buf);
      if (!JOURNAL_SYNCS_ON_WRITE) await this.fh.datasync();
    } catch (err) {
      try {
        await this.fh.truncate(this.bytes);
      } catch (rollbackErr) {
        throw new RollbackFailedError(err, rollbackErr);
      }
      // Best effort: a full disk may refuse this sync too. The next successful write's fdatasync
      // makes the shorter length durable with it; only a crash before that could bring back the
      // refused batch's bytes (a torn tail is set aside at replay, a whole batch would replay).
      await this.fh.datasync().catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/** A failed journal write could not be undone: what the file ends with is unknown. */
export class RollbackFailedError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly rollbackError: unknown,
  ) {
    super(`journal write failed (${cause instanceof Error ? cause.message : String(cause)}) and could not be rolled back (${rollbackError instanceof Error ? rollbackError.message : String(rollbackError)})`);
    this.name = 'RollbackFailedError';
  }
}
