/**
 * Plumbing the fake servers share: JSON and text answers, a sleep that ends when the client hangs
 * up, and the recorded-call shape.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

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
