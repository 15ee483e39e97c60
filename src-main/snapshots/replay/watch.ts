import type { ServerResponse } from 'node:http';
import type { ReplayEntry } from './replay-index';
import { sendStatus } from './respond';

/**
 * A watch on the replay: a snapshot never changes, so it sends the current objects as ADDED
 * (unless it resumes from a resourceVersion) and then stays quiet until its timeout.
 *
 * Bounded (issue 34 item 5: 300 stalled watches grew the server from 321 to 730 MB): at most
 * MAX_WATCHES are open per replay (the next is a 429 Status with Retry-After); the objects are
 * written in chunks of MAX_WATCH_BUFFER, each once the last has left the process, and a client
 * that takes nothing for WATCH_STALL_MS is dropped. The timeout is `timeoutSeconds`, or `timeout` (a Go duration:
 * kubectl's --request-timeout sends it), whichever is shorter, at most 30 minutes.
 */

export const MAX_WATCHES = 64;
export const MAX_WATCH_BUFFER = 256 * 1024;
export const WATCH_STALL_MS = 10_000;
export const MAX_WATCH_MS = 30 * 60_000;

/** A Go duration (`3s`, `1m30s`, `500ms`, `1h`) in milliseconds, or null when it is not one. */
export function goDurationMs(text: string): number | null {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return null;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * (unit[m[2] as string] as number);
  return total;
}

/** How long the watch stays open: the shorter of timeoutSeconds and timeout, else MAX_WATCH_MS. */
export function watchDurationMs(query: URLSearchParams): number {
  const bounds = [MAX_WATCH_MS];
  const seconds = Number(query.get('timeoutSeconds'));
  if (Number.isFinite(seconds) && seconds > 0) bounds.push(seconds * 1000);
  const timeout = goDurationMs(query.get('timeout') ?? '');
  if (timeout !== null && timeout > 0) bounds.push(timeout);
  return Math.min(...bounds);
}

const ADDED_HEAD = Buffer.from('{"type":"ADDED","object":');
const ADDED_TAIL = Buffer.from('}\n');

export type WatchLimits = { maxWatches: number; maxBufferBytes: number; stallMs: number };
export const DEFAULT_WATCH_LIMITS: WatchLimits = { maxWatches: MAX_WATCHES, maxBufferBytes: MAX_WATCH_BUFFER, stallMs: WATCH_STALL_MS };

/** The open watches of one replay, their bound, and what they hold for their clients. */
export class WatchRegistry {
  private readonly open = new Map<() => void, ServerResponse>();
  /** Watches refused at the cap, and dropped for not reading. */
  refused = 0;
  dropped = 0;

  constructor(readonly limits: WatchLimits = DEFAULT_WATCH_LIMITS) {}

  get count(): number {
    return this.open.size;
  }

  /** Bytes written to open watches and not yet taken by their clients. */
  bufferedBytes(): number {
    let total = 0;
    for (const res of this.open.values()) total += res.writableLength;
    return total;
  }

  add(end: () => void, res: ServerResponse): void {
    this.open.set(end, res);
  }

  delete(end: () => void): void {
    this.open.delete(end);
  }

  /** Ends every watch (the replay stops). */
  endAll(): void {
    for (const end of [...this.open.keys()]) end();
  }
}

export function openWatch(res: ServerResponse, selected: readonly ReplayEntry[], query: URLSearchParams, watches: WatchRegistry): void {
  const { maxWatches, maxBufferBytes, stallMs } = watches.limits;
  if (watches.count >= maxWatches) {
    watches.refused++;
    return sendStatus(res, 429, 'TooManyRequests', `too many open watches on this replay (at most ${maxWatches}); retry later`, { retryAfterSeconds: 1 }, { 'retry-after': '1' });
  }
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'cache-control': 'no-cache, private' });
  // The headers go now, as a real API server sends them: a watch resumed from a resourceVersion has
  // nothing to write, and a client whose request timeout equals the watch's (kubectl's
  // --request-timeout) would otherwise see no answer at all, and retry the watch, again and again.
  res.flushHeaders();
  let stallTimer: NodeJS.Timeout | undefined;
  const end = (drop = false) => {
    clearTimeout(timer);
    clearTimeout(stallTimer);
    if (drop) watches.dropped++;
    watches.delete(end);
    if (drop) res.destroy();
    else if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(() => end(), watchDurationMs(query));
  watches.add(end, res);
  res.on('close', () => end());
  const resume = query.get('resourceVersion');
  const pending = !resume || resume === '0' ? selected : [];
  let next = 0;
  // Written in chunks, each once the one before it has left the process (its write callback:
  // over TLS, `write()` says yes whatever the client has read). A client that takes nothing for
  // stallMs is dropped, so what waits for it is one chunk, never the whole list.
  const pump = () => {
    clearTimeout(stallTimer);
    if (next >= pending.length || res.destroyed) return;
    const parts: Buffer[] = [];
    let size = 0;
    while (next < pending.length && size < maxBufferBytes) {
      const entry = pending[next++] as ReplayEntry;
      parts.push(ADDED_HEAD, entry.bytes, ADDED_TAIL);
      size += ADDED_HEAD.length + entry.bytes.length + ADDED_TAIL.length;
    }
    stallTimer = setTimeout(() => end(true), stallMs);
    res.write(Buffer.concat(parts, size), () => pump());
  };
  pump();
}
