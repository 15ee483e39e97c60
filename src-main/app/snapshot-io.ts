import { SNAPSHOT_IMPORT_LIMIT_BYTES } from '../../shared';
import { canonicalSnapshotOwned, SnapshotDocumentError, type CanonicalSnapshot } from '../snapshots/document';
import { assertDepth, DocumentTextError, DocumentTooLargeError, readDocumentText } from '../snapshots/document-stream';
import { ProblemError } from './problem-error';

/** Snapshot documents in and out of the service: a body read piece by piece, and exports counted per tenant. */

/**
 * `pieces`, calling `done` once when they end, fail or are abandoned (the client went away, even
 * before the first piece: a generator's own finally would not run then).
 */
function counted(pieces: AsyncGenerator<string, void, void>, done: () => void): AsyncIterable<string> {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    done();
  };
  const iterator: AsyncIterator<string, void, void> = {
    async next() {
      try {
        const step = await pieces.next();
        if (step.done) release();
        return step;
      } catch (err) {
        release();
        throw err;
      }
    },
    async return() {
      release();
      await pieces.return();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** A stream of bytes (an HTTP body), as opposed to a parsed document (the in-process client, a suite's import). */
function isByteStream(value: unknown): value is AsyncIterable<Buffer | string> {
  return typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function' && Symbol.asyncIterator in value;
}

/**
 * The canonical form of what an import was given: a body read and parsed piece by piece, or a
 * parsed document (copied: the caller keeps its object); checked and canonicalised in slices.
 */
export async function documentOf(document: unknown): Promise<CanonicalSnapshot> {
  try {
    const parsed = isByteStream(document) ? await readDocumentText(document, { maxBytes: SNAPSHOT_IMPORT_LIMIT_BYTES }) : document;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      const what = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed;
      throw new ProblemError(400, 'bad_request', `a snapshot document is a JSON object (what GET /v1/snapshots/{id}/export answers), not ${what}`);
    }
    if (parsed !== document) return await canonicalSnapshotOwned(parsed);
    // A parsed document from this process (a suite's import): refused if too deep before it is copied.
    assertDepth(document);
    return await canonicalSnapshotOwned(structuredClone(document));
  } catch (err) {
    if (err instanceof SnapshotDocumentError) throw ProblemError.validation(err.issues, 'snapshot document');
    if (err instanceof DocumentTextError) throw new ProblemError(400, 'invalid_json', `request body is ${err.message}`);
    if (err instanceof DocumentTooLargeError) throw new ProblemError(413, 'payload_too_large', `a snapshot document is at most ${SNAPSHOT_IMPORT_LIMIT_BYTES / (1024 * 1024)} MiB`);
    throw err;
  }
}

/** Exports one tenant may run at once (each holds a file and a connection, and costs CPU while it runs). */


/** Exports one tenant may run at once (each holds a file and a connection, and costs CPU while it runs). */
export const MAX_EXPORTS_PER_TENANT = 2;
const EXPORT_RETRY_AFTER_S = 5;

/** Counts the exports running per tenant; past MAX_EXPORTS_PER_TENANT another is a 429 with Retry-After. */
export class ExportLimiter {
  private readonly running = new Map<string, number>();

  /** Takes a place for `tenantId` (counted at once: two exports asked together both see the other); the function returned gives it back. */
  acquire(tenantId: string): () => void {
    const running = this.running.get(tenantId) ?? 0;
    if (running >= MAX_EXPORTS_PER_TENANT) {
      throw new ProblemError(429, 'too_many_exports', `${running} exports of this tenant are running; at most ${MAX_EXPORTS_PER_TENANT} run at once: retry when one ends`, undefined, {
        'retry-after': String(EXPORT_RETRY_AFTER_S),
      });
    }
    this.running.set(tenantId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(tenantId) ?? 1) - 1;
      if (left > 0) this.running.set(tenantId, left);
      else this.running.delete(tenantId);
    };
  }
}

/** An export's text, its place given back when it ends, fails or is abandoned. */
export function exportWithin(limiter: ExportLimiter, tenantId: string, open: () => Promise<AsyncGenerator<string, void, void> | undefined>): Promise<AsyncIterable<string> | undefined> {
  const release = limiter.acquire(tenantId);
  return open().then(
    (text) => {
      if (!text) release();
      return text ? counted(text, release) : undefined;
    },
    (err: unknown) => {
      release();
      throw err;
    },
  );
}
