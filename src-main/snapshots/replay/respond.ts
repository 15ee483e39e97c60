import type { ServerResponse } from 'node:http';

/** Writing the replay's answers: JSON, text, Kubernetes Status objects, and lists assembled from cached pieces. */

export type Json = Record<string, unknown>;

export function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export function send(res: ServerResponse, code: number, body: string | Buffer, contentType = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'content-type': contentType, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length, 'cache-control': 'no-cache, private', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  send(res, code, JSON.stringify(body));
}

export function sendStatus(res: ServerResponse, code: number, reason: string, message: string, details?: Json, headers: Record<string, string> = {}): void {
  send(res, code, JSON.stringify(status(code, reason, message, details)), 'application/json', headers);
}

const COMMA = Buffer.from(',');

/** A JSON answer in pieces: `head`, the items joined by commas, `tail`. */
export type Pieces = { head: string; items: readonly Buffer[]; tail: string };

/**
 * Sends the pieces as they are (corked: one write to the socket), never copied into one large
 * Buffer: a list of 1,000 pods is 1.6 MB, and a fresh buffer of that size per answer made
 * garbage collection most of a list's cost.
 */
export function sendPieces(res: ServerResponse, code: number, pieces: Pieces): void {
  const head = Buffer.from(pieces.head);
  const tail = Buffer.from(pieces.tail);
  let length = head.length + tail.length + Math.max(0, pieces.items.length - 1);
  for (const item of pieces.items) length += item.length;
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': length, 'cache-control': 'no-cache, private' });
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  res.write(head);
  pieces.items.forEach((item, i) => {
    if (i > 0) res.write(COMMA);
    res.write(item);
  });
  res.end(tail);
  res.uncork();
}
