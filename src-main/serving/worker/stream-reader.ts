/* eslint-disable @typescript-eslint/no-explicit-any -- the hot path reads parsed JSON with cheap typeof checks instead of a schema per chunk (the main thread validates the final chunk with zod) */
import type { WorkerLimits } from './protocol';

/**
 * The serving worker's stream reader: NDJSON lines (Ollama) or SSE `data:` lines (OpenAI chat or
 * completion chunks), timed on arrival, with every byte counted. These functions run inside the
 * worker from their source text (see source.ts): they use nothing outside this file, and this
 * file's only import is a type.
 *
 * What is kept per request is a few numbers and the ITL gaps (bounded by the chunk cap), never
 * the text: a backend that streams forever, or sends bytes without a newline, ends its own
 * request at the response or line cap.
 */

export type StreamState = {
  first: number | null;
  last: number;
  itl: number[];
  textChunks: number;
  maxTextChunks: number;
  finishReason: string | null;
  final: unknown;
  error: string | null;
  /** Ollama's done line or the SSE `[DONE]` arrived. */
  done: boolean;
  /** When the answer's last event arrived. */
  endedAt: number | null;
};

export function newStreamState(maxTextChunks: number): StreamState {
  return { first: null, last: 0, itl: [], textChunks: 0, maxTextChunks, finishReason: null, final: null, error: null, done: false, endedAt: null };
}

export function noteText(s: StreamState, t: number): void {
  if (s.first === null) s.first = t;
  else s.itl.push(t - s.last);
  s.last = t;
  s.textChunks++;
  if (s.textChunks > s.maxTextChunks) s.error = `the server streamed more than ${s.maxTextChunks} chunks of text for the tokens asked`;
}

export function errorText(o: any): string {
  const e = o?.error;
  const text = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof o?.message === 'string' ? o.message : 'an error without a message';
  return text.slice(0, 500);
}

/** One NDJSON line of an Ollama /api/chat stream. */
export function readOllamaLine(s: StreamState, line: string, t: number): void {
  if (line.trim() === '') return;
  let o: any;
  try {
    o = JSON.parse(line);
  } catch {
    s.error = 'a line of the answer is not JSON';
    return;
  }
  if (!o || typeof o !== 'object') {
    s.error = 'a line of the answer is not a JSON object';
    return;
  }
  if (o.error !== undefined) {
    s.error = errorText(o);
    return;
  }
  const m = o.message;
  if (m && typeof m === 'object' && ((typeof m.content === 'string' && m.content !== '') || (typeof m.thinking === 'string' && m.thinking !== ''))) noteText(s, t);
  if (o.done === true) {
    s.done = true;
    s.endedAt = t;
    s.final = o;
    s.finishReason = typeof o.done_reason === 'string' ? o.done_reason : null;
  }
}

/** One SSE line of an OpenAI-compatible stream: `data: {chunk}`, `data: [DONE]`, comments and other fields ignored. */
export function readSseLine(s: StreamState, line: string, t: number, completions: boolean): void {
  if (!line.startsWith('data:')) return;
  const data = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
  if (data === '[DONE]') {
    s.done = true;
    s.endedAt = t;
    return;
  }
  let o: any;
  try {
    o = JSON.parse(data);
  } catch {
    s.error = 'an event of the answer is not JSON';
    return;
  }
  if (!o || typeof o !== 'object') {
    s.error = 'an event of the answer is not a JSON object';
    return;
  }
  if (o.error !== undefined || o.object === 'error') {
    s.error = errorText(o);
    return;
  }
  if (Array.isArray(o.choices)) {
    for (const c of o.choices) {
      if (!c || typeof c !== 'object') continue;
      const d = c.delta;
      const text = completions ? c.text : d && typeof d === 'object' ? d.content || d.reasoning_content || d.reasoning : undefined;
      if (typeof text === 'string' && text !== '') noteText(s, t);
      if (typeof c.finish_reason === 'string') s.finishReason = c.finish_reason;
    }
  }
  if (o.usage && typeof o.usage === 'object') s.final = o.usage;
  s.endedAt = t;
}

/**
 * Splits a response body into lines on byte 10 (never inside a UTF-8 sequence), counting the
 * bytes of the body and of the line in progress. `onLine` gets each line without its `\r\n`;
 * the returned push gives an error message once a cap is passed.
 */
export function lineSplitter(limits: Pick<WorkerLimits, 'lineBytes' | 'responseBytes'>, onLine: (line: string) => void): (chunk: Buffer) => string | null {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  return (chunk) => {
    total += chunk.length;
    if (total > limits.responseBytes) return `the answer passed ${limits.responseBytes} bytes`;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
      if (line.length > limits.lineBytes) return `a line of the answer passed ${limits.lineBytes} bytes`;
      pending = [];
      pendingBytes = 0;
      const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
      onLine(line.toString('utf8', 0, end));
      start = nl + 1;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > limits.lineBytes) return `a line of the answer passed ${limits.lineBytes} bytes without an end`;
      pending.push(chunk.subarray(start));
    }
    return null;
  };
}

/** The reader as one object: how the worker's other parts reach it (see source.ts). */
export const STREAM_READER = { newStreamState, noteText, errorText, readOllamaLine, readSseLine, lineSplitter };
export type StreamReader = typeof STREAM_READER;
