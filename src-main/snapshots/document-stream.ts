import { StringDecoder } from 'node:string_decoder';
import { MAX_CONTAINER_LOGS, MAX_OBJECTS_PER_RESOURCE } from '../../shared';
import { maskCredentialText } from './credential-text';
import { SnapshotDocumentError, type CanonicalSnapshot, type Json } from './document-types';
import { JsonDepthError, JsonStreamReader, JsonSyntaxError, type JsonPath } from './json-stream';
import { sanitizeLines, sanitizeObject, sanitizeServerUrl } from './sanitize';
import { Slicer } from './time-slice';
import type { SnapshotResource } from '../../shared/snapshots';

/**
 * Snapshot documents as streams of text, never as one string: reading one (an import's body, a
 * stored file) object by object, and writing one (a stored file, an export) piece by piece.
 *
 * A document is split at its objects (`objects.<resource>.<i>`), its logs (`logs.<i>`) and its
 * envelope's fields: each of those is parsed on its own (JSON.parse on a small piece), the rest
 * (the brackets around them) is walked by JsonStreamReader. So neither the text nor a second
 * copy of the tree is ever held, and the event loop runs between pieces.
 */

/** Deeper is refused: Kubernetes objects are a few tens of levels deep; a 2,000-level document is an attack or a mistake. */
export const MAX_JSON_DEPTH = 256;
/** One object, log or envelope field at most (etcd stores objects of up to 1.5 MiB). */
export const MAX_PIECE_CHARS = 4 * 1024 * 1024;

/** Where the document is split: the values parsed one by one. */
export function documentSplit(path: JsonPath, first: string): boolean {
  switch (path.length) {
    case 0:
      return first !== '{';
    case 1:
      return !((path[0] === 'objects' && first === '{') || (path[0] === 'logs' && first === '['));
    case 2:
      return path[0] !== 'objects' || first !== '[';
    default:
      return true;
  }
}

/** What a text (a request body, a file) could not be read as, for the caller's 400/422. */
export class DocumentTextError extends Error {
  override name = 'DocumentTextError';
  constructor(
    message: string,
    /** 'syntax' → 400 invalid_json; 'document' → 422 naming the path. */
    readonly kind: 'syntax' | 'document',
    readonly path = '',
  ) {
    super(message);
  }
}

function pathText(path: JsonPath): string {
  return path.map(String).join('.');
}

/** JSON.parse of one piece, refusing keys that could alter prototypes later (as the JSON body parser does). */
function parsePiece(path: JsonPath, raw: string): unknown {
  if (raw.length > MAX_PIECE_CHARS) {
    throw new SnapshotDocumentError([{ path: pathText(path), message: `larger than ${MAX_PIECE_CHARS / (1024 * 1024)} MiB: no Kubernetes object is (etcd keeps at most 1.5 MiB)` }]);
  }
  try {
    return /"(?:__proto__|constructor)"/.test(raw) ? JSON.parse(raw, refuseProtoKeys) : JSON.parse(raw);
  } catch (err) {
    if (err instanceof DocumentTextError) throw err;
    throw new DocumentTextError(`not valid JSON at ${pathText(path) || 'the top'}: ${err instanceof Error ? err.message.slice(0, 200) : 'parse error'}`, 'syntax');
  }
}

function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))) {
    throw new DocumentTextError(`a "${key}" key is refused (it could alter object prototypes); remove it`, 'syntax');
  }
  return value;
}

/**
 * Refuses a parsed value nested deeper than MAX_JSON_DEPTH (a document handed over as an object,
 * not as text): found iteratively, before anything recursive (structuredClone, the hash) runs over it.
 */
export function assertDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: { value: unknown; depth: number; path: (string | number)[] }[] = [{ value, depth: 0, path: [] }];
  while (stack.length > 0) {
    const { value: node, depth, path } = stack.pop() as (typeof stack)[number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > maxDepth) throw depthProblem(new JsonDepthError(path, maxDepth));
    // The path is kept for the first few levels only: enough to say where, without a copy per node.
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [key, child] of entries) if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1, path: path.length < 4 ? [...path, key] : path });
  }
}

/** Collects a parsed document from the pieces JsonStreamReader hands over. */
class DocumentCollector {
  root: unknown;
  private doc: Json = {};
  private objects: Record<string, unknown> | undefined;
  private logs: unknown[] | undefined;

  onEnter = (path: JsonPath, kind: 'object' | 'array'): void => {
    if (path.length === 0) this.root = this.doc;
    else if (path.length === 1 && path[0] === 'objects') this.doc.objects = this.objects = {};
    else if (path.length === 1 && path[0] === 'logs') this.doc.logs = this.logs = [];
    else if (path.length === 2 && this.objects && kind === 'array') this.objects[String(path[1])] = [];
  };

  onValue = (path: JsonPath, raw: string): undefined => {
    const value = parsePiece(path, raw);
    if (path.length === 0) this.root = value;
    else if (path.length === 1) this.doc[String(path[0])] = value;
    else if (path[0] === 'logs' && this.logs) {
      if (this.logs.length >= MAX_CONTAINER_LOGS) throw new SnapshotDocumentError([{ path: 'logs', message: `at most ${MAX_CONTAINER_LOGS} container logs` }]);
      this.logs.push(value);
    } else if (path[0] === 'objects' && this.objects) {
      const resource = String(path[1]);
      if (path.length === 2) this.objects[resource] = value;
      else {
        const list = this.objects[resource] as unknown[];
        if (list.length >= MAX_OBJECTS_PER_RESOURCE) throw new SnapshotDocumentError([{ path: `objects.${resource}`, message: `at most ${MAX_OBJECTS_PER_RESOURCE} ${resource}` }]);
        list.push(value);
      }
    }
  };
}

function depthProblem(err: JsonDepthError): SnapshotDocumentError {
  return new SnapshotDocumentError([{ path: pathText(err.path), message: `nested deeper than ${err.maxDepth} levels: a snapshot document is Kubernetes objects, a few tens of levels deep` }]);
}

/**
 * Reads a document from text chunks (a request body, a file), pausing between chunks so the
 * event loop runs. Throws DocumentTextError (not JSON, too large) or SnapshotDocumentError (too
 * deep, too many objects) naming the place; the document's content is checked afterwards.
 */
export async function readDocumentText(chunks: AsyncIterable<Buffer | string>, options: { maxBytes?: number } = {}): Promise<unknown> {
  const collector = new DocumentCollector();
  const reader = new JsonStreamReader({ maxDepth: MAX_JSON_DEPTH, split: documentSplit, onValue: collector.onValue, onEnter: collector.onEnter });
  const decoder = new StringDecoder('utf8');
  const slicer = new Slicer();
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (options.maxBytes !== undefined && bytes > options.maxBytes) throw new DocumentTooLargeError(options.maxBytes);
      reader.write(decoder.write(buffer));
      await slicer.pause();
    }
    reader.write(decoder.end());
    if (!reader.started) throw new DocumentTextError('the body is empty: send the snapshot document (what GET /v1/snapshots/{id}/export answers)', 'syntax');
    reader.end();
  } catch (err) {
    if (err instanceof JsonDepthError) throw depthProblem(err);
    if (err instanceof JsonSyntaxError) throw new DocumentTextError(`not valid JSON: ${err.message}`, 'syntax');
    throw err;
  }
  return collector.root;
}

export class DocumentTooLargeError extends Error {
  override name = 'DocumentTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the document is larger than ${Math.round(maxBytes / (1024 * 1024))} MiB`);
  }
}

/** Joins small pieces into chunks of about this size before they are written. */
const CHUNK_CHARS = 64 * 1024;

/** The text of a canonical document (what the stored file and an export hold), in pieces of about 64 KiB. */
export function* documentText(doc: CanonicalSnapshot & { snapshot_id: string }): Generator<string, void, void> {
  const { objects, logs, warnings, ...envelope } = doc;
  let buffer = JSON.stringify({ ...envelope, snapshot_id: doc.snapshot_id }).slice(0, -1);
  buffer += ',"objects":{';
  const resources = Object.keys(objects) as SnapshotResource[];
  for (let r = 0; r < resources.length; r++) {
    const resource = resources[r] as SnapshotResource;
    buffer += `${r > 0 ? ',' : ''}${JSON.stringify(resource)}:[`;
    const list = objects[resource];
    for (let i = 0; i < list.length; i++) {
      buffer += `${i > 0 ? ',' : ''}${JSON.stringify(list[i])}`;
      if (buffer.length >= CHUNK_CHARS) {
        yield buffer;
        buffer = '';
      }
    }
    buffer += ']';
  }
  buffer += '},"logs":[';
  for (let i = 0; i < logs.length; i++) {
    buffer += `${i > 0 ? ',' : ''}${JSON.stringify(logs[i])}`;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  buffer += `],"warnings":${JSON.stringify(warnings)}}`;
  yield buffer;
}

/** One piece of a stored document, with today's never-captured rules applied again (a file stored by an older version may predate them). */
function sanitizedPiece(path: JsonPath, raw: string): string {
  const value = parsePiece(path, raw);
  if (path[0] === 'objects' && path.length === 3 && value !== null && typeof value === 'object') {
    return JSON.stringify(sanitizeObject(String(path[1]) as SnapshotResource, value as Json));
  }
  if (path[0] === 'logs' && path.length === 2 && value !== null && typeof value === 'object') {
    const log = value as Record<'current' | 'previous', unknown>;
    for (const key of ['current', 'previous'] as const) {
      const text = log[key];
      if (Array.isArray(text)) log[key] = sanitizeLines(text.map(String));
      else if (typeof text === 'string') log[key] = maskCredentialText(text);
    }
    return JSON.stringify(log);
  }
  if (path.length === 1 && path[0] === 'source' && value !== null && typeof value === 'object') {
    const source = value as { server?: unknown };
    if (typeof source.server === 'string') source.server = sanitizeServerUrl(source.server);
    return JSON.stringify(source);
  }
  if (path.length === 1 && typeof value === 'string' && path[0] !== 'format') return JSON.stringify(maskCredentialText(value));
  if (path.length === 1 && path[0] === 'warnings' && Array.isArray(value)) return JSON.stringify(value.map((w) => (typeof w === 'string' ? maskCredentialText(w) : w)));
  return raw;
}

/**
 * A stored document's text as an export: read in chunks, each object and log sanitised again and
 * written out as it is read, so an export holds one piece at a time, whatever the document's size.
 */
export async function* exportText(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, void> {
  let out: string[] = [];
  const reader = new JsonStreamReader({ maxDepth: MAX_JSON_DEPTH, split: documentSplit, onValue: sanitizedPiece, onSkeleton: (text) => out.push(text) });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of chunks) {
    reader.write(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (out.length > 0) {
      yield out.join('');
      out = [];
    }
  }
  reader.write(decoder.end());
  reader.end();
  if (out.length > 0) yield out.join('');
}
