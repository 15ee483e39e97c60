import Conf from 'conf';
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, fsyncPathSync } from './atomic-file';
import { LAYOUT } from './layout';
import type { Quarantine } from './quarantine';

export const STORE_FORMAT_VERSION = 1;

type MetaShape = {
  format_version: number;
  /** Highest seq that may have been handed out; the next process starts above it. */
  seq_reserved: number;
  created_at: string;
};

/**
 * The store's settings-like data in a Conf store (`store-meta.json`, conf's own format, same in
 * Electron and plain Node). Written rarely (once per seq block), so conf's whole-file rewrite is
 * the right tool here.
 */
export class StoreMeta {
  private constructor(
    private readonly conf: Conf<MetaShape>,
    private reserved: number,
    /**
     * 'new': there was no file (a fresh dir, or a lost file if jobs exist); 'recovered': the file was
     * corrupt or held no valid reservation. In both lost cases the caller must recover the seq floor.
     */
    readonly state: 'ok' | 'new' | 'recovered',
  ) {}

  static open(dataDir: string, quarantine: Quarantine): StoreMeta {
    const file = path.join(dataDir, `${LAYOUT.metaConfigName}.json`);
    const existed = fs.existsSync(file);
    let conf: Conf<MetaShape>;
    let corrupt = false;
    try {
      conf = StoreMeta.openConf(dataDir);
    } catch (err) {
      // conf throws on unparsable JSON (clearInvalidConfig would wipe it without a copy): set it aside.
      quarantine.moveAsideSync(file, 'store-meta.json is unreadable', { error: err instanceof Error ? err.message : String(err) });
      corrupt = true;
      conf = StoreMeta.openConf(dataDir);
    }
    const raw = conf.get('seq_reserved');
    const valid = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0;
    if (!valid && existed && !corrupt) {
      quarantine.logger.warn('store-meta.json has no valid seq_reserved; recovering it from the event logs', { value: String(raw) });
    }
    if (!existed || corrupt || !valid) {
      conf.set({ format_version: STORE_FORMAT_VERSION, seq_reserved: valid ? raw : 0, created_at: new Date().toISOString() });
      fsyncPathSync(dataDir);
    }
    return new StoreMeta(conf, valid ? raw : 0, corrupt || (existed && !valid) ? 'recovered' : existed ? 'ok' : 'new');
  }

  private static openConf(dataDir: string): Conf<MetaShape> {
    return new Conf<MetaShape>({ cwd: dataDir, configName: LAYOUT.metaConfigName, accessPropertiesByDotNotation: false, configFileMode: FILE_MODE });
  }

  get seqReserved(): number {
    return this.reserved;
  }

  /**
   * Persists the reservation before any seq up to it is handed out. conf writes temp + fsync +
   * rename; the directory fsync makes the rename itself survive a power cut.
   */
  reserveSeq(upTo: number, dataDir: string): void {
    if (upTo <= this.reserved) return;
    this.conf.set('seq_reserved', upTo);
    fsyncPathSync(dataDir);
    this.reserved = upTo;
  }
}

/**
 * Global event seq: monotonic across restarts because a block is reserved on disk before it is used.
 * A crash loses the unused part of the block (gaps are fine), never goes back.
 */
export class SeqAllocator {
  private nextSeq: number;

  constructor(
    private readonly meta: StoreMeta,
    private readonly dataDir: string,
    private readonly block: number,
    /** Highest seq known to be used (e.g. found in the journal or the event logs). */
    floor: number,
  ) {
    this.nextSeq = Math.max(meta.seqReserved, floor) + 1;
  }

  next(): number {
    if (this.nextSeq > this.meta.seqReserved) this.meta.reserveSeq(this.nextSeq + this.block - 1, this.dataDir);
    return this.nextSeq++;
  }

  /** The last seq handed out (or the restart floor). */
  get last(): number {
    return this.nextSeq - 1;
  }
}
