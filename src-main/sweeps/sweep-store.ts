import fsp from 'node:fs/promises';
import path from 'node:path';
import { SweepRecordSchema, type SweepRecord } from '../../shared/sweeps';
import { DIR_MODE, fsyncPath, isOutOfSpace, writeFileAtomic } from '../store/atomic-file';
import { idOfFile, LoadOnce, namesIn, readRecordFile } from '../store/id-files';
import { Quarantine } from '../store/quarantine';
import { InsufficientStorageError, type StoreLogger } from '../store/types';

/**
 * Sweeps in the data dir: one file per sweep, `sweeps/<sweep_id>.json`, written like every file of
 * the data dir (temp file, fsync, rename, 0600; the directory fsynced after a create), so a sweep
 * accepted is on disk before the 202 and a crash leaves the old or the new record, never a torn
 * one. A sweep is rewritten at each cell and machine change (a few dozen times in its life), so
 * whole-file writes of one small record stay cheap; nothing grows with the number of sweeps.
 * A file that does not read is set aside in corrupt/ with a warn line.
 */

export const SWEEPS_DIR = 'sweeps';
export class SweepStore {
  readonly dir: string;
  private readonly records = new LoadOnce(() => this.scan());
  private readonly quarantine: Quarantine;
  /** Writes of one sweep, in call order (the last one wins on disk as in memory). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly dataDir: string,
    private readonly logger: StoreLogger,
  ) {
    this.dir = path.join(dataDir, SWEEPS_DIR);
    this.quarantine = new Quarantine(dataDir, logger);
  }

  private filePath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Every sweep, newest first. */
  async list(): Promise<SweepRecord[]> {
    return [...(await this.load()).values()].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.sweep_id.localeCompare(a.sweep_id)));
  }

  async get(id: string): Promise<SweepRecord | undefined> {
    return (await this.load()).get(id);
  }

  /** The latest version in memory (after the first load); undefined before it or when unknown. */
  peek(id: string): SweepRecord | undefined {
    return this.records.peek()?.get(id);
  }

  /** Stores a new sweep durably (file and directory entry) before it resolves. */
  async create(record: SweepRecord): Promise<void> {
    const records = await this.load();
    if (records.has(record.sweep_id)) throw new Error(`sweep ${record.sweep_id} exists`);
    await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    await this.write(record);
    await fsyncPath(this.dir);
    records.set(record.sweep_id, record);
  }

  /** Replaces a sweep's record durably; the memory copy changes at once (reads see it), the disk in call order. */
  async put(record: SweepRecord): Promise<void> {
    const records = await this.load();
    records.set(record.sweep_id, record);
    const previous = this.chains.get(record.sweep_id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.write(record));
    this.chains.set(record.sweep_id, next);
    try {
      await next;
    } finally {
      if (this.chains.get(record.sweep_id) === next) this.chains.delete(record.sweep_id);
    }
  }

  /** Resolves when every write submitted so far has landed. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()].map((p) => p.catch(() => undefined)));
  }

  private async write(record: SweepRecord): Promise<void> {
    try {
      await writeFileAtomic(this.filePath(record.sweep_id), JSON.stringify(record), { fsync: true });
    } catch (err) {
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
  }

  private load(): Promise<Map<string, SweepRecord>> {
    return this.records.get();
  }

  private async scan(): Promise<Map<string, SweepRecord>> {
    const map = new Map<string, SweepRecord>();
    for (const name of await namesIn(this.dir)) {
      const id = idOfFile(name);
      if (!id) continue;
      const file = this.filePath(id);
      const read = await readRecordFile(file, SweepRecordSchema, (r) => r.sweep_id, id);
      if ('record' in read) map.set(id, read.record);
      else await this.quarantine.moveAside(file, `sweep ${id} does not read as a sweep record (${read.reason.slice(0, 300)})`, { sweep_id: id });
    }
    return map;
  }
}
