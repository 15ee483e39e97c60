import fsp from 'node:fs/promises';
import path from 'node:path';
import { SuiteSchema, type Suite } from '../../shared/suites';
import { DIR_MODE, isOutOfSpace, writeFileAtomic } from '../store/atomic-file';
import { idOfFile, LoadOnce, namesIn, readRecordFile } from '../store/id-files';
import { Quarantine } from '../store/quarantine';
import { InsufficientStorageError, type StoreLogger } from '../store/types';

/**
 * Suites in the data dir: `suites/<id>.json`, one file each, written like every file of the data
 * dir (temp file, fsync, rename, mode 0600). A file that no longer reads is set aside in corrupt/
 * with a warn line. The shipped suite is not stored: it comes with the program.
 */

export const SUITES_DIR = 'suites';
export class SuiteStore {
  readonly dir: string;
  private readonly suites = new LoadOnce(() => this.scan());
  private readonly quarantine: Quarantine;

  constructor(
    private readonly dataDir: string,
    logger: StoreLogger,
  ) {
    this.dir = path.join(dataDir, SUITES_DIR);
    this.quarantine = new Quarantine(dataDir, logger);
  }

  async list(): Promise<Suite[]> {
    return [...(await this.load()).values()].sort((a, b) => a.name.localeCompare(b.name) || a.suite_id.localeCompare(b.suite_id));
  }

  async get(id: string): Promise<Suite | undefined> {
    return (await this.load()).get(id);
  }

  /** Every stored suite, synchronously (the snapshot service asks who uses a snapshot); empty before the first load. */
  loaded(): readonly Suite[] {
    return [...(this.suites.peek()?.values() ?? [])];
  }

  async write(suite: Suite): Promise<void> {
    const suites = await this.load();
    try {
      await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
      await writeFileAtomic(path.join(this.dir, `${suite.suite_id}.json`), JSON.stringify(suite), { fsync: true });
    } catch (err) {
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
    suites.set(suite.suite_id, suite);
  }

  async remove(id: string): Promise<boolean> {
    const suites = await this.load();
    if (!suites.has(id)) return false;
    await fsp.rm(path.join(this.dir, `${id}.json`), { force: true });
    suites.delete(id);
    return true;
  }

  load(): Promise<Map<string, Suite>> {
    return this.suites.get();
  }

  private async scan(): Promise<Map<string, Suite>> {
    const map = new Map<string, Suite>();
    for (const name of await namesIn(this.dir)) {
      const id = idOfFile(name);
      if (!id) continue;
      const file = path.join(this.dir, name);
      const read = await readRecordFile(file, SuiteSchema, (s) => s.suite_id, id);
      if ('record' in read) map.set(id, read.record);
      else await this.quarantine.moveAside(file, `suite ${id} does not read (${read.reason.slice(0, 300)})`, { suite_id: id });
    }
    return map;
  }
}
