import fsp from 'node:fs/promises';
import path from 'node:path';
import { DIR_MODE, fsyncPath, isOutOfSpace, writeFileAtomic } from '../store/atomic-file';
import { idOfFile, namesIn, readRecordFile } from '../store/id-files';
import { Quarantine } from '../store/quarantine';
import { InsufficientStorageError, type StoreLogger } from '../store/types';
import { LeaseRecordSchema, type LeaseRecord } from './lease-record';

/**
 * The ledger on disk: one file per lease, `leases/<lease_id>.json`, written like every file of the
 * data dir (temp file, fsync, rename, 0600), in call order per lease. The ledger keeps every lease
 * in memory and writes through here; a write that fails (a full disk) is reported to the caller,
 * and the memory copy, which every check reads, stays right.
 */

export const LEASES_DIR = 'leases';

export type LeaseBookLike = {
  loadAll(): Promise<LeaseRecord[]>;
  put(record: LeaseRecord): Promise<void>;
  flush(): Promise<void>;
};

export class LeaseBook implements LeaseBookLike {
  readonly dir: string;
  readonly #quarantine: Quarantine;
  readonly #chains = new Map<string, Promise<unknown>>();
  #dirReady = false;

  constructor(
    private readonly dataDir: string,
    private readonly logger: StoreLogger,
  ) {
    this.dir = path.join(dataDir, LEASES_DIR);
    this.#quarantine = new Quarantine(dataDir, logger);
  }

  /** Every lease on disk; a file that does not read is set aside with a warn line. */
  async loadAll(): Promise<LeaseRecord[]> {
    const out: LeaseRecord[] = [];
    for (const name of await namesIn(this.dir)) {
      const id = idOfFile(name);
      if (!id) continue;
      const file = path.join(this.dir, name);
      const read = await readRecordFile(file, LeaseRecordSchema, (r) => r.lease_id, id);
      if ('record' in read) out.push(read.record);
      else await this.#quarantine.moveAside(file, `lease ${id} does not read as a lease record (${read.reason.slice(0, 300)})`, { lease_id: id });
    }
    return out;
  }

  /** Writes a lease (in call order per lease: the last one wins on disk as in memory). */
  async put(record: LeaseRecord): Promise<void> {
    const id = record.lease_id;
    const previous = this.#chains.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#write(record));
    this.#chains.set(id, next);
    try {
      await next;
    } finally {
      if (this.#chains.get(id) === next) this.#chains.delete(id);
    }
  }

  async flush(): Promise<void> {
    await Promise.all([...this.#chains.values()].map((p) => p.catch(() => undefined)));
  }

  async #write(record: LeaseRecord): Promise<void> {
    try {
      if (!this.#dirReady) {
        await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
        await fsyncPath(path.dirname(this.dir));
        this.#dirReady = true;
      }
      await writeFileAtomic(path.join(this.dir, `${record.lease_id}.json`), JSON.stringify(record), { fsync: true });
    } catch (err) {
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
  }
}

/** A book in memory only (unit tests; the CLI's estimate paths that never rent). */
export class MemoryLeaseBook implements LeaseBookLike {
  readonly records = new Map<string, LeaseRecord>();
  async loadAll(): Promise<LeaseRecord[]> {
    return [...this.records.values()];
  }
  async put(record: LeaseRecord): Promise<void> {
    this.records.set(record.lease_id, structuredClone(record));
  }
  async flush(): Promise<void> {}
}
