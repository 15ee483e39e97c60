import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SnapshotLintWarningSchema, SnapshotSummarySchema, type SnapshotLintWarning, type SnapshotSummary } from '../../shared/snapshots';
import { DIR_MODE, isErrno, isOutOfSpace, writeFileAtomic, writeFileAtomicPieces } from '../store/atomic-file';
import { idOfFile, LoadOnce, namesIn, readRecordFile } from '../store/id-files';
import { Quarantine } from '../store/quarantine';
import { InsufficientStorageError, type StoreLogger } from '../store/types';
import { canonicalSnapshotOwned, contentHashSliced, countsOf, logBytesOf, sourceHost, SnapshotDocumentError, type CanonicalSnapshot } from './document';
import { DocumentTextError, documentText, exportText, readDocumentText } from './document-stream';
import { lintSentence, lintSnapshot, lintSnapshotSliced } from './lint';

/**
 * Snapshots in the data dir: `snapshots/<id>.json` (the document, as export writes it) and
 * `snapshots/<id>.meta.json` (its summary and content hash, so a list reads a few hundred bytes
 * per snapshot instead of every document). Both are written like every file of the data dir:
 * temp file, fsync, rename, mode 0600 (store/atomic-file.ts). The document is written first and
 * removed last, so a crash leaves at worst a document without its summary, which the next list
 * rebuilds; a document that no longer reads is set aside in corrupt/ with a warn line.
 */

export const SNAPSHOTS_DIR = 'snapshots';

/** The stored summary: everything but `used_by`, which is asked of the running app each time. */
export type StoredSummary = Omit<SnapshotSummary, 'used_by'> & { content_sha256: string };
// Summaries stored before log_bytes existed are completed from their document when first read;
// one written before the lint existed has no `lint`: it is rebuilt from its document on the next scan.
const StoredSummarySchema = SnapshotSummarySchema.omit({ used_by: true, log_bytes: true }).extend({
  content_sha256: z.string(),
  log_bytes: z.number().int().nonnegative().optional(),
  lint: z.array(SnapshotLintWarningSchema).optional(),
});
type ReadSummary = Omit<z.infer<typeof StoredSummarySchema>, 'log_bytes'> & { log_bytes: number };

export type StoredSnapshot = CanonicalSnapshot & { snapshot_id: string };

export class SnapshotStore {
  readonly dir: string;
  private readonly summaries = new LoadOnce(() => this.scan());
  private readonly quarantine: Quarantine;

  constructor(
    private readonly dataDir: string,
    private readonly logger: StoreLogger,
  ) {
    this.dir = path.join(dataDir, SNAPSHOTS_DIR);
    this.quarantine = new Quarantine(dataDir, logger);
  }

  private docPath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private metaPath(id: string): string {
    return path.join(this.dir, `${id}.meta.json`);
  }

  /** Every stored snapshot's summary, newest recording first. */
  async list(): Promise<StoredSummary[]> {
    const all = [...(await this.load()).values()];
    return all.sort((a, b) => (a.recorded_at < b.recorded_at ? 1 : a.recorded_at > b.recorded_at ? -1 : a.snapshot_id.localeCompare(b.snapshot_id)));
  }

  async summary(id: string): Promise<StoredSummary | undefined> {
    return (await this.load()).get(id);
  }

  /** The stored document, or undefined when there is none (a corrupt one is set aside). */
  async read(id: string): Promise<StoredSnapshot | undefined> {
    const summaries = await this.load();
    if (!summaries.has(id)) return undefined;
    const doc = await this.readDocument(id);
    if (!doc) summaries.delete(id);
    return doc;
  }

  async findByContent(hash: string): Promise<StoredSummary | undefined> {
    for (const summary of (await this.load()).values()) if (summary.content_sha256 === hash) return summary;
    return undefined;
  }

  async has(id: string): Promise<boolean> {
    return (await this.load()).has(id);
  }

  /** Stores a canonical document under `id` (which must be free) and answers its summary; written piece by piece. */
  async write(id: string, doc: CanonicalSnapshot, origin: 'recorded' | 'imported', storedAt: Date): Promise<StoredSummary> {
    const summaries = await this.load();
    const stored: StoredSnapshot = { ...doc, snapshot_id: id };
    const hash = await contentHashSliced(stored);
    let sizeBytes: number;
    try {
      await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
      sizeBytes = await writeFileAtomicPieces(this.docPath(id), documentText(stored));
    } catch (err) {
      await fsp.rm(this.docPath(id), { force: true }).catch(() => undefined);
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
    const summary = summaryOf(stored, { origin, storedAt: storedAt.toISOString(), sizeBytes, hash, lint: await lintSnapshotSliced(stored) });
    try {
      await writeFileAtomic(this.metaPath(id), JSON.stringify(summary), { fsync: true });
    } catch (err) {
      await fsp.rm(this.docPath(id), { force: true }).catch(() => undefined);
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
    summaries.set(id, summary);
    return summary;
  }

  /**
   * A stored document as export text, read and sanitised piece by piece (exportText); undefined
   * when there is none. The file is opened before this answers, so a delete after it does not cut the export.
   */
  async exportText(id: string): Promise<AsyncGenerator<string, void, void> | undefined> {
    if (!(await this.has(id))) return undefined;
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.docPath(id), 'r');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return undefined;
      throw err;
    }
    const stream = handle.createReadStream({ highWaterMark: 64 * 1024, autoClose: true });
    return exportText(stream);
  }

  /** Removes a snapshot; false when there was none. */
  async remove(id: string): Promise<boolean> {
    const summaries = await this.load();
    if (!summaries.has(id)) return false;
    await fsp.rm(this.metaPath(id), { force: true });
    await fsp.rm(this.docPath(id), { force: true });
    summaries.delete(id);
    return true;
  }

  private load(): Promise<Map<string, StoredSummary>> {
    return this.summaries.get();
  }

  private async scan(): Promise<Map<string, StoredSummary>> {
    const map = new Map<string, StoredSummary>();
    const names = await namesIn(this.dir);
    const present = new Set(names);
    for (const name of names) {
      const id = name.endsWith('.meta.json') ? null : idOfFile(name);
      if (!id) continue;
      const summary = present.has(`${id}.meta.json`) ? await this.readSummary(id) : undefined;
      if (summary?.lint) {
        map.set(id, { ...summary, lint: summary.lint });
        continue;
      }
      // A document without a readable summary (a crash between the two writes): rebuild it.
      const doc = await this.readDocument(id);
      if (!doc) continue;
      const stat = await fsp.stat(this.docPath(id));
      const rebuilt = summaryOf(doc, { origin: summary?.origin ?? 'imported', storedAt: summary?.stored_at ?? stat.mtime.toISOString(), sizeBytes: stat.size, hash: await contentHashSliced(doc), lint: await lintSnapshotSliced(doc) });
      await writeFileAtomic(this.metaPath(id), JSON.stringify(rebuilt), { fsync: true }).catch(() => undefined);
      map.set(id, rebuilt);
    }
    // Summaries whose document is gone (a crash during a delete) are dropped.
    for (const name of names) {
      if (!name.endsWith('.meta.json')) continue;
      const id = name.slice(0, -'.meta.json'.length);
      if (!present.has(`${id}.json`)) await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
    }
    return map;
  }

  private async readSummary(id: string): Promise<ReadSummary | undefined> {
    const read = await readRecordFile(this.metaPath(id), StoredSummarySchema, (s) => s.snapshot_id, id);
    if (!('record' in read)) return undefined;
    const { log_bytes: logBytes, ...rest } = read.record;
    if (logBytes !== undefined) return { ...rest, log_bytes: logBytes };
    // Stored before log_bytes existed: counted from the document once, and kept.
    const doc = await this.readDocument(id);
    if (!doc) return undefined;
    const completed: ReadSummary = { ...rest, log_bytes: logBytesOf(doc) };
    await writeFileAtomic(this.metaPath(id), JSON.stringify(completed), { fsync: true }).catch(() => undefined);
    return completed;
  }

  private async readDocument(id: string): Promise<StoredSnapshot | undefined> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.docPath(id), 'r');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return undefined;
      throw err;
    }
    try {
      const raw = await readDocumentText(handle.createReadStream({ highWaterMark: 64 * 1024, autoClose: false }));
      const doc = await canonicalSnapshotOwned(raw);
      return { ...doc, snapshot_id: id };
    } catch (err) {
      if (!(err instanceof SnapshotDocumentError) && !(err instanceof DocumentTextError)) throw err;
      const reason = err instanceof SnapshotDocumentError ? err.message : 'not JSON';
      await this.quarantine.moveAside(this.docPath(id), `snapshot ${id} does not read (${reason.slice(0, 300)})`, { snapshot_id: id });
      await fsp.rm(this.metaPath(id), { force: true }).catch(() => undefined);
      return undefined;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
}

/** The summary of a stored document; `lint` is its lint (lintSnapshotSliced for a big one), or it is run here at once. */
export function summaryOf(doc: StoredSnapshot, meta: { origin: 'recorded' | 'imported'; storedAt: string; sizeBytes: number; hash: string; lint?: SnapshotLintWarning[] }): StoredSummary {
  const lint = meta.lint ?? lintSnapshot(doc);
  return {
    snapshot_id: doc.snapshot_id,
    name: doc.name,
    description: doc.description ?? null,
    recorded_at: doc.recorded_at,
    source: sourceHost(doc.source.server),
    kubernetes_version: doc.source.kubernetes_version ?? null,
    counts: countsOf(doc),
    namespaces: doc.objects.namespaces.map((ns) => String(ns.metadata.name)),
    size_bytes: meta.sizeBytes,
    log_bytes: logBytesOf(doc),
    lint,
    origin: meta.origin,
    stored_at: meta.storedAt,
    warnings: [...doc.warnings, ...lint.map(lintSentence)],
    content_sha256: meta.hash,
  };
}
