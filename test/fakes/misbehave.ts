/**
 * Backends that would bloat a careless client (issue 34 item 2), for the fakes' failure knobs:
 * - `stream_forever`: valid chunks without end, as fast as the socket takes them;
 * - `no_newlines`: bytes without a line end, without end;
 * - `never_answer`: takes the request and says nothing.
 * Each stops when the client hangs up.
 */
import type { ServerResponse } from 'node:http';
import { untilGone } from './http-util';

export type Misbehaviour = 'stream_forever' | 'no_newlines' | 'never_answer';

export async function misbehave(res: ServerResponse, kind: Misbehaviour, signal: AbortSignal, contentType: string, chunk: () => string): Promise<void> {
  if (kind === 'never_answer') return untilGone(signal);
  res.writeHead(200, { 'Content-Type': contentType });
  const block = kind === 'no_newlines' ? 'x'.repeat(64 * 1024) : Array.from({ length: 64 }, chunk).join('');
  while (!signal.aborted && !res.destroyed) {
    // Honour back-pressure: a client that stops reading makes this wait, not buffer.
    if (!res.write(block)) {
      await new Promise<void>((resolve) => {
        const done = () => (res.off('drain', done), res.off('close', done), resolve());
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
}
