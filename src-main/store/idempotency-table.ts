import fsp from 'node:fs/promises';
import path from 'node:path';
import { FILE_MODE, appendWithRollback, writeFileAtomic } from './atomic-file';
import { toJsonl } from './jsonl';
import { LAYOUT } from './layout';
import { loadLogFile } from './log-file';
import type { Quarantine } from './quarantine';
import { parseIdempotency } from './records';
import type { IdempotencyRecord } from './types';

function keyOf(tenantId: string, kind: string, key: string): string {
  return `${tenantId}\u0000${kind}\u0000${key}`;
}

/**
 * Idempotency records in memory, persisted as `idempotency.jsonl` (one line per record, last wins).
 * Records reach the file through the journal together with their job; prune rewrites the file with
 * the live set.
 */
export class IdempotencyTable {
  private readonly map = new Map<string, IdempotencyRecord>();
  private fh: fsp.FileHandle | undefined;
  private fileSize = 0;
  private lines = 0;

  private constructor(readonly path: string) {}

  static async load(dataDir: string, quarantine: Quarantine): Promise<IdempotencyTable> {
    const table = new IdempotencyTable(path.join(dataDir, LAYOUT.idempotencyFile));
    const loaded = await loadLogFile(table.path, parseIdempotency, quarantine, 'idempotency.jsonl');
    for (const rec of loaded.values) table.put(rec);
    table.lines = loaded.lines;
    return table;
  }

  get(tenantId: string, kind: string, key: string): IdempotencyRecord | undefined {
    return this.map.get(keyOf(tenantId, kind, key));
  }

  put(rec: IdempotencyRecord): void {
    this.map.set(keyOf(rec.tenant_id, rec.kind, rec.key), Object.freeze({ ...rec }));
  }

  /** Removes records created before cutoffMs from memory; the caller then rewrites the file. */
  prune(cutoffMs: number): number {
    let n = 0;
    for (const [k, rec] of this.map) {
      if (Date.parse(rec.created_at) < cutoffMs) {
        this.map.delete(k);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.map.size;
  }

  needsCompaction(): boolean {
    return this.lines > 2 * this.map.size + 1000;
  }

  /** Appends without fsync (journal-covered until the next checkpoint). */
  async append(recs: readonly IdempotencyRecord[]): Promise<void> {
    if (recs.length === 0) return;
    if (!this.fh) {
      const fh = await fsp.open(this.path, 'a', FILE_MODE);
      this.fileSize = (await fh.stat()).size;
      this.fh = fh;
    }
    this.fileSize = await appendWithRollback(this.fh, this.fileSize, Buffer.from(toJsonl(recs)));
    this.lines += recs.length;
  }

  /** Rewrites the file with the records in memory (temp + fsync + rename). Nobody may append meanwhile. */
  async rewrite(): Promise<void> {
    await this.close();
    await writeFileAtomic(this.path, toJsonl([...this.map.values()]), { fsync: true });
    this.lines = this.map.size;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
}
