import { createHash, type Hash } from 'node:crypto';
import { SNAPSHOT_RESOURCES, type SnapshotCounts, type SnapshotResource } from '../../shared';
import { canonicalise } from './canonicalise';
import { type CanonicalSnapshot, type Json } from './document-types';
import { runAtOnce, runSliced, type SlicedWork } from './time-slice';

export { SnapshotDocumentError, type CanonicalSnapshot } from './document-types';

/**
 * A snapshot document in its canonical form (document-types.ts says what that is; the checks and
 * the steps are canonicalise.ts): from a parsed document, at once (small ones, tests) or in
 * slices that leave the event loop free (what the server does), and its content hash.
 */

/** Checks and canonicalises a document at once; the caller's object is not changed. Throws SnapshotDocumentError naming the paths. */
export function canonicalSnapshot(raw: unknown): CanonicalSnapshot {
  return runAtOnce(canonicalise(structuredClone(raw)));
}

/** The same in slices, over a document the caller hands over (it is changed in place: a streamed import owns its parse). */
export function canonicalSnapshotOwned(raw: unknown): Promise<CanonicalSnapshot> {
  return runSliced(canonicalise(raw));
}

export function countsOf(doc: CanonicalSnapshot): SnapshotCounts {
  const counts = Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, doc.objects[r].length])) as Record<SnapshotResource, number>;
  return { ...counts, logs: doc.logs.length };
}

/** Bytes of log text the document holds (UTF-8, a newline after each line). */
export function logBytesOf(doc: CanonicalSnapshot): number {
  let total = 0;
  for (const log of doc.logs) {
    for (const lines of [log.current, log.previous]) {
      if (lines) for (const line of lines) total += Buffer.byteLength(line) + 1;
    }
  }
  return total;
}

/** The API server's host:port, without scheme or credentials. */
export function sourceHost(server: string): string {
  try {
    return new URL(server).host || server;
  } catch {
    return server;
  }
}

/**
 * JSON with object keys sorted: the same content gives the same text, whatever order its keys
 * were written in. Written as loops over strings (no entries, filter or map per object): it runs
 * over every object of a document to hash it, a million of them in a large import.
 */
export function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + stableJson(value[i]);
    return `${text}]`;
  }
  const object = value as Json;
  // The default sort compares UTF-16 code units, as `<` does.
  const keys = Object.keys(object).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${stableJson(item)}`;
    first = false;
  }
  return `${text}}`;
}

/** Feeds a hash in pieces of about 64 KiB: one update per small piece cost more than the hashing. */
class BatchedHash {
  private pending = '';
  constructor(private readonly hash: Hash) {}
  update(text: string): void {
    this.pending += text;
    if (this.pending.length >= 64 * 1024) this.flush();
  }
  flush(): void {
    if (this.pending.length > 0) this.hash.update(this.pending);
    this.pending = '';
  }
  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

const STEP = 256;

function* hashList(hash: BatchedHash, list: readonly unknown[]): Generator<void, void, void> {
  hash.update('[');
  for (let i = 0; i < list.length; i++) {
    if (i > 0) hash.update(',');
    hash.update(stableJson(list[i]));
    if (i % STEP === 0) yield;
  }
  hash.update(']');
}

/**
 * The SHA-256 of stableJson(content), fed piece by piece: the same digest as hashing the whole
 * text (stored summaries keep it), without building a text the size of the document.
 */
function* hashContent(doc: CanonicalSnapshot): SlicedWork<string> {
  const { snapshot_id: _id, ...content } = doc;
  const hash = new BatchedHash(createHash('sha256'));
  const entries = Object.entries(content as Json).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  hash.update('{');
  for (let e = 0; e < entries.length; e++) {
    const [key, value] = entries[e] as [string, unknown];
    if (e > 0) hash.update(',');
    hash.update(`${JSON.stringify(key)}:`);
    if (key === 'logs') yield* hashList(hash, value as unknown[]);
    else if (key === 'objects') {
      const resources = Object.keys(value as Json).filter((r) => (value as Json)[r] !== undefined).sort();
      hash.update('{');
      for (let r = 0; r < resources.length; r++) {
        if (r > 0) hash.update(',');
        hash.update(`${JSON.stringify(resources[r])}:`);
        yield* hashList(hash, (value as Json)[resources[r] as string] as unknown[]);
      }
      hash.update('}');
    } else hash.update(stableJson(value));
  }
  hash.update('}');
  return hash.digest();
}

/** SHA-256 of the document without its id: two imports of the same content are the same snapshot. */
export function contentHash(doc: CanonicalSnapshot): string {
  return runAtOnce(hashContent(doc));
}

/** The same, in slices. */
export function contentHashSliced(doc: CanonicalSnapshot): Promise<string> {
  return runSliced(hashContent(doc));
}
