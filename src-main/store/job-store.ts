import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DIR_MODE, fsyncPath } from './atomic-file';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import { FileJobStore } from './file-job-store';
import { DEFAULTS, type OpenJobStoreOptions } from './store-options';
import { IdempotencyTable } from './idempotency-table';
import { IndexLog } from './index-log';
import { indexLineOf } from './job-index';
import { JournalWriter, listJournalGens, readJournal } from './journal';
import { LAYOUT, journalFilePath, shardDirs } from './layout';
import { consoleStoreLogger } from './logger';
import { tightenDataDir } from './permissions';
import { Quarantine } from './quarantine';
import { scanMaxSeq } from './seq-recovery';
import { SeqAllocator, StoreMeta } from './store-meta';
import type { JobStore, StoreLogger } from './types';

export type { OpenJobStoreOptions } from './store-options';

/**
 * Opens (or creates) the job store of a data dir: takes the data-dir lock, loads the index and the
 * idempotency table, replays any journal a crash left, and starts a fresh journal. Throws
 * DataDirLockedError while another live process holds the dir.
 */
export async function openJobStore(options: OpenJobStoreOptions): Promise<JobStore> {
  const dataDir = path.resolve(options.dataDir);
  const logger = options.logger ?? consoleStoreLogger;
  await fsp.mkdir(dataDir, { recursive: true, mode: DIR_MODE });
  await tightenDataDir(dataDir, logger);
  const lock = acquireDataDirLock(dataDir, logger, { releaseOnExit: options.releaseLockOnExit ?? true });
  try {
    return await openFileJobStore(dataDir, logger, lock, options);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function ensureLayout(dataDir: string): Promise<void> {
  const dirs = shardDirs(dataDir);
  const last = dirs[dirs.length - 1];
  if (last && fs.existsSync(last)) return;
  // All 256 shard dirs up front: later writes never create a directory (nor need to fsync its parent).
  for (const dir of dirs) await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  await fsyncPath(path.join(dataDir, LAYOUT.jobsDir));
  await fsyncPath(dataDir);
}

/** Loads the index and idempotency table, replays any journal a crash left, and starts a fresh journal. */
async function openFileJobStore(dataDir: string, logger: StoreLogger, lock: DataDirLock, options: OpenJobStoreOptions): Promise<FileJobStore> {
  const started = performance.now();
  const quarantine = new Quarantine(dataDir, logger);
  await ensureLayout(dataDir);
  const meta = StoreMeta.open(dataDir, quarantine);
  const { log: indexLog, index, rebuilt } = await IndexLog.load(dataDir, quarantine);
  const idempotency = await IdempotencyTable.load(dataDir, quarantine);
  const store = new FileJobStore(dataDir, logger, lock, quarantine, index, indexLog, idempotency, options);

  // Replay what a crash left in the journal: newer than anything in the index, applied in order.
  const gens = await listJournalGens(dataDir);
  let maxSeq = 0;
  let replayed = 0;
  for (const gen of gens) {
    const entries = await readJournal(dataDir, gen, quarantine);
    for (const e of entries) {
      if (e.t === 'job') {
        index.upsert(indexLineOf(e.rec, e.ord));
        if (e.idem) idempotency.put(e.idem);
      } else if (e.ev.seq > maxSeq) {
        maxSeq = e.ev.seq;
      }
    }
    void store.materialiser.enqueue(entries, true);
    replayed += entries.length;
  }
  if (gens.length > 0) {
    // Nothing is writing yet, so the checkpoint may use more of the thread pool.
    await store.materialiser.checkpoint(undefined, 8);
    for (const gen of gens) await fsp.rm(journalFilePath(dataDir, gen), { force: true });
    await fsyncPath(path.join(dataDir, LAYOUT.journalDir));
    logger.info(`replayed ${replayed} journal entr${replayed === 1 ? 'y' : 'ies'} from ${gens.length} file(s)`, { data_dir: dataDir });
  }
  if (meta.state === 'recovered' || (meta.state === 'new' && (index.size > 0 || gens.length > 0))) {
    maxSeq = Math.max(maxSeq, await scanMaxSeq(dataDir));
    logger.warn(`seq reservation recovered from the event logs: continuing after ${maxSeq}`, { data_dir: dataDir });
  }
  const seq = new SeqAllocator(meta, dataDir, options.seqBlock ?? DEFAULTS.seqBlock, maxSeq);
  if (rebuilt || indexLog.needsCompaction(index.size)) await indexLog.compact(index);
  if (idempotency.needsCompaction()) await idempotency.rewrite();
  store.attach(seq, await JournalWriter.open(dataDir, (gens[gens.length - 1] ?? 0) + 1, options.checkpointBytes ?? DEFAULTS.checkpointBytes));
  logger.info('job store open', { data_dir: dataDir, jobs: index.size, ms: Math.round(performance.now() - started) });
  return store;
}
