import fsp from 'node:fs/promises';
import path from 'node:path';
import { FILE_MODE, appendWithRollback, forEachLimit, isErrno, writeFileAtomic } from './atomic-file';
import { JobIndex, indexLineOf, lineOfEntry, parseIndexLine, type IndexDrop, type IndexLine } from './job-index';
import { toJsonl } from './jsonl';
import { LAYOUT, isSafeJobId, jobFilePath, shardDirs, shardListings } from './layout';
import { loadLogFile } from './log-file';
import type { Quarantine } from './quarantine';
import { parseStoredRecord } from './records';

/**
 * `index.jsonl`: one line per job create or status change (last line per job wins), plus `drop`
 * lines for jobs whose file was set aside. Replayed at open so listing never reads every job
 * file; compacted (rewritten atomically) when it has grown well past the live set.
 */
export class IndexLog {
  private fh: fsp.FileHandle | undefined;
  private size = 0;
  /** Lines in the file (for the compaction decision). */
  lines = 0;

  private constructor(readonly path: string) {}

  static async load(dataDir: string, quarantine: Quarantine): Promise<{ log: IndexLog; index: JobIndex; rebuilt: boolean }> {
    const log = new IndexLog(path.join(dataDir, LAYOUT.indexFile));
    const loaded = await loadLogFile(log.path, parseIndexLine, quarantine, 'index.jsonl');
    let index = new JobIndex();
    for (const line of loaded.values) {
      if ('op' in line) index.drop(line.job_id);
      else index.upsert(line);
    }
    log.lines = loaded.lines;
    // A corrupt line in the middle hides which job it was about; a missing index over existing job
    // files means it was lost. Either way the job files are the truth: rebuild from them.
    let rebuilt = false;
    if (loaded.badLines > 0 || (!loaded.existed && (await hasJobFiles(dataDir)))) {
      index = await rebuildFromJobFiles(dataDir, quarantine);
      quarantine.logger.warn(`index.jsonl rebuilt from ${index.size} job file(s)`, { reason: loaded.badLines > 0 ? 'corrupt lines' : 'missing' });
      rebuilt = true;
    }
    // Lines of an older version lack what search and sort need: read those jobs' files once.
    if (!rebuilt && (await addMissingFacts(dataDir, index)) > 0) rebuilt = true;
    return { log, index, rebuilt };
  }

  private async handle(): Promise<fsp.FileHandle> {
    if (!this.fh) {
      const fh = await fsp.open(this.path, 'a', FILE_MODE);
      this.size = (await fh.stat()).size;
      this.fh = fh;
    }
    return this.fh;
  }

  /** Appends without fsync: the journal covers these lines until the next checkpoint fsyncs the file. */
  async append(lines: readonly (IndexLine | IndexDrop)[]): Promise<void> {
    if (lines.length === 0) return;
    this.size = await appendWithRollback(await this.handle(), this.size, Buffer.from(toJsonl(lines)));
    this.lines += lines.length;
  }

  needsCompaction(live: number): boolean {
    return this.lines > 2 * live + 1000;
  }

  /** Rewrites the file as one line per live job (temp + fsync + rename). Nobody may append meanwhile. */
  async compact(index: JobIndex): Promise<void> {
    await this.close();
    const lines: IndexLine[] = index.allInOrder().map(lineOfEntry);
    await writeFileAtomic(this.path, toJsonl(lines), { fsync: true });
    this.lines = lines.length;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
}

async function hasJobFiles(dataDir: string): Promise<boolean> {
  for (const dir of shardDirs(dataDir)) {
    try {
      if ((await fsp.readdir(dir)).some((n) => n.endsWith('.json'))) return true;
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
  }
  return false;
}

/** Reads every job file (slow: the rare recovery path). Unreadable files are set aside. */
async function rebuildFromJobFiles(dataDir: string, quarantine: Quarantine): Promise<JobIndex> {
  const found: IndexLine[] = [];
  for await (const { dir, names } of shardListings(dataDir)) {
    const jobFiles = names.filter((n) => n.endsWith('.json') && isSafeJobId(n.slice(0, -5)));
    await forEachLimit(jobFiles, 16, async (name) => {
      const file = path.join(dir, name);
      let record;
      try {
        record = parseStoredRecord(JSON.parse(await fsp.readFile(file, 'utf8')));
      } catch {
        record = undefined;
      }
      if (!record || `${record.job_id}.json` !== name) {
        await quarantine.moveAside(file, 'unreadable job file found while rebuilding the index');
        return;
      }
      found.push(indexLineOf(record, 0));
    });
  }
  // Creation order is lost with the index: created_at, then job_id, is the best stand-in.
  found.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.job_id < b.job_id ? -1 : 1));
  const index = new JobIndex();
  for (const line of found) index.upsert({ ...line, ord: index.nextOrd() });
  return index;
}

/**
 * Fills in the facts (model, backend, message, duration, cost) of entries written by a version
 * that did not record them, from their job files; the caller then compacts the index so this
 * happens once. A file that cannot be read leaves its entry as it was (reads deal with it).
 */
async function addMissingFacts(dataDir: string, index: JobIndex): Promise<number> {
  const missing = index.withoutFacts();
  let filled = 0;
  await forEachLimit(missing, 16, async (entry) => {
    let record;
    try {
      record = parseStoredRecord(JSON.parse(await fsp.readFile(jobFilePath(dataDir, entry.job_id), 'utf8')));
    } catch {
      return;
    }
    if (!record || record.job_id !== entry.job_id) return;
    index.upsert({ ...indexLineOf(record, entry.ord), status: entry.status, updated_at: entry.updated_at });
    filled++;
  });
  return filled;
}
