import fsp from 'node:fs/promises';
import path from 'node:path';
import { SuiteSchema, type Suite } from '../../shared/suites';
import { DIR_MODE, isErrno, isOutOfSpace, writeFileAtomic } from '../store/atomic-file';
import { Quarantine } from '../store/quarantine';
import { InsufficientStorageError, type StoreLogger } from '../store/types';

/**
 * Suites in the data dir: `suites/<id>.json`, one file each, written like every file of the data
 * dir (temp file, fsync, rename, mode 0600). A file that no longer reads is set aside in corrupt/
 * with a warn line. The shipped suite is not stored: it comes with the program.
 */

export const SUITES_DIR = 'suites';
const ID_FILE = /^([a-z0-9][a-z0-9-]{0,63})\.json$/;

export class SuiteStore {
  readonly dir: string;
  private suites: Map<string, Suite> | undefined;
  private loading: Promise<Map<string, Suite>> | undefined;
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
    return this.suites ? [...this.suites.values()] : [];
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
    if (this.suites) return Promise.resolve(this.suites);
    this.loading ??= this.scan().then((map) => {
      this.suites = map;
      return map;
    });
    return this.loading;
  }

  private async scan(): Promise<Map<string, Suite>> {
    const map = new Map<string, Suite>();
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return map;
      throw err;
    }
    for (const name of names) {
      const m = ID_FILE.exec(name);
      if (!m) continue;
      const id = m[1] as string;
      const file = path.join(this.dir, name);
      let reason: string;
      try {
        const parsed = SuiteSchema.safeParse(JSON.parse(await fsp.readFile(file, 'utf8')));
        if (parsed.success && parsed.data.suite_id === id) {
          map.set(id, parsed.data);
          continue;
        }
        reason = parsed.success ? `its suite_id is ${parsed.data.suite_id}` : (parsed.error.issues[0]?.message ?? 'invalid');
      } catch (err) {
        reason = err instanceof SyntaxError ? 'not JSON' : String(err);
      }
      await this.quarantine.moveAside(file, `suite ${id} does not read (${reason.slice(0, 300)})`, { suite_id: id });
    }
    return map;
  }
}
