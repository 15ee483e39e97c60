import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT } from '../../shared';
import { canonicalSnapshot } from '../../src-main/snapshots/document';
import { ReplayIndex } from '../../src-main/snapshots/replay/replay-index';
import { startReplay, type ReplayServer } from '../../src-main/snapshots/replay/server';
import { MAX_WATCHES, MAX_WATCH_BUFFER, goDurationMs, watchDurationMs } from '../../src-main/snapshots/replay/watch';
import { waitFor } from '../helpers/bench';

/**
 * Issue 34 item 5 (the replay's part): 300 stalled watches grew the server from 321 to 730 MB.
 * Watches are capped per replay, written only as fast as their client reads, and a client that
 * stops reading is dropped. Asserted on what the replay holds, not on RSS.
 */

/** `count` pods of about 1 KiB: a watch's first answer is `count` KiB. */
function bigSnapshot(count: number) {
  const pods = Array.from({ length: count }, (_, i) => ({
    metadata: { name: `pod-${String(i).padStart(6, '0')}`, namespace: 'load', annotations: { note: 'x'.repeat(900) } },
    spec: { nodeName: 'node-1', containers: [{ name: 'app' }] },
  }));
  return canonicalSnapshot({ format: SNAPSHOT_FORMAT, name: 'load', recorded_at: '2026-08-20T10:30:00Z', source: { server: 'https://203.0.113.10:6443' }, objects: { pods } });
}

let replay: ReplayServer;
const sockets: tls.TLSSocket[] = [];
beforeAll(async () => {
  replay = await startReplay(new ReplayIndex(bigSnapshot(3_000)));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await replay?.close();
});

/** A watch whose client never reads a byte of the answer. */
async function stalledWatch(replay: ReplayServer): Promise<tls.TLSSocket> {
  const url = new URL(replay.url);
  const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: replay.caPem });
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  socket.write(`GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${replay.token}\r\n\r\n`);
  return socket;
}

describe('watches on a replay', () => {
  it('300 stalled watches: at most MAX_WATCHES open, the rest a 429, and what each holds bounded', { timeout: 60_000 }, async () => {
    await Promise.all(Array.from({ length: 300 }, () => stalledWatch(replay)));
    await waitFor(() => replay.watches.count + replay.watches.refused === 300, 'every watch to be answered');
    expect(replay.watches.count).toBe(MAX_WATCHES);
    expect(replay.watches.refused).toBe(300 - MAX_WATCHES);
    // What the replay holds for them: a chunk per watch at most, never the whole list each would take.
    expect(replay.watches.bufferedBytes()).toBeLessThanOrEqual(MAX_WATCHES * (MAX_WATCH_BUFFER + 64 * 1024));
    for (const s of sockets.splice(0)) s.destroy();
    await waitFor(() => replay.watches.count === 0, 'the watches to close with their clients');
  });

  it('a client that stops reading is dropped, its place free again', { timeout: 60_000 }, async () => {
    // 40 MB of objects: more than the kernel's socket buffers take for a client that never reads.
    const big = await startReplay(new ReplayIndex(bigSnapshot(40_000)), { watchLimits: { stallMs: 1_000 } });
    try {
      await Promise.all([stalledWatch(big), stalledWatch(big)]);
      await waitFor(() => big.watches.dropped === 2, 'the stalled watches to be dropped', 30_000);
      expect(big.watches.count).toBe(0);
    } finally {
      await big.close();
    }
  });

  it('the watch timeout: timeoutSeconds or kubectl\'s timeout= (a Go duration), whichever is shorter', () => {
    expect(goDurationMs('3s')).toBe(3_000);
    expect(goDurationMs('1m30s')).toBe(90_000);
    expect(goDurationMs('500ms')).toBe(500);
    expect(goDurationMs('soon')).toBeNull();
    expect(watchDurationMs(new URLSearchParams('timeout=3s'))).toBe(3_000);
    expect(watchDurationMs(new URLSearchParams('timeoutSeconds=5&timeout=1m'))).toBe(5_000);
    expect(watchDurationMs(new URLSearchParams(''))).toBe(30 * 60_000);
  });
});
