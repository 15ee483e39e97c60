/**
 * Plumbing the fake servers share: JSON and text answers, a sleep that ends when the client hangs
 * up, and the recorded-call shape.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, unknown>;

/** Thrown by a wait when the client went away: the handler just stops. */
export class ClientGone extends Error {}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(new ClientGone()) : Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ClientGone());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when the client is gone (a request a fake never answers). */
export function untilGone(signal: AbortSignal): Promise<void> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(new ClientGone());
    else signal.addEventListener('abort', () => reject(new ClientGone()), { once: true });
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

export function asRecord(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

/** About 4 characters a token, as the fakes count prompts. */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** Set when the answer is finished (or the connection closed). */
  status?: number;
  at: number;
}

export type RecordedRoute = (req: IncomingMessage, res: ServerResponse, path: string, body: unknown, arrived: number, signal: AbortSignal) => Promise<unknown>;

/**
 * A fake's HTTP server on 127.0.0.1:0: each request's body read and parsed (JSON, else its text),
 * recorded in `calls`, and routed with a signal that fires when the client hangs up or the server
 * closes (a handler waiting on it just stops). `arrived` is when the request came in, before its
 * body was read (a serving clock starts there). A handler's error is a 500 (`errorBody`).
 */
export async function startRecordingServer(options: { now: () => number; route: RecordedRoute; errorBody: (message: string) => unknown }): Promise<{ url: string; calls: RecordedCall[]; close(): Promise<void> }> {
  const calls: RecordedCall[] = [];
  const closing = new AbortController();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const call: RecordedCall = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, at: options.now() };
    calls.push(call);
    const gone = new AbortController();
    const onGone = () => gone.abort();
    // A client that hung up mid-stream must not crash the test process with an unhandled 'error'.
    res.on('error', onGone);
    res.on('close', () => {
      call.status = res.statusCode;
      if (!res.writableFinished) onGone();
    });
    closing.signal.addEventListener('abort', onGone, { once: true });
    try {
      await options.route(req, res, url.pathname, body, arrived, gone.signal);
    } catch (error) {
      if (error instanceof ClientGone) return;
      if (!res.headersSent) sendJson(res, 500, options.errorBody(String(error)));
      else res.end();
    } finally {
      closing.signal.removeEventListener('abort', onGone);
    }
  };
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
