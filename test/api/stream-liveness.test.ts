import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../shared/client';
import { SSE_HEARTBEAT_MS } from '../../src-main/api/server';
import { TOKENS, makeBench, removeDir, waitFor, type TestBench } from '../helpers/bench';

/**
 * How a client learns that the server is gone: the HTTP client reports each stream connection
 * opening and breaking (CallOptions.onConnection). A stopped server closes the connection; a
 * silent one is given up after the client's idle timeout, which the server's heartbeat (one a
 * second) never lets expire on a live connection. The browser UI builds its "server stopped"
 * banner and frozen figures on this.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function collect() {
  const states: string[] = [];
  return { states, onConnection: (s: 'open' | 'lost') => states.push(s) };
}

describe('stream liveness', () => {
  it('the heartbeat is frequent enough for a 2.5 s silence limit to mean "gone"', () => {
    expect(SSE_HEARTBEAT_MS).toBeLessThanOrEqual(1_000);
  });

  it('a live but idle stream stays open on heartbeats, and a stopped server is reported lost', async () => {
    const t: TestBench = await makeBench({ start: true });
    cleanups.push(async () => {
      await t.close();
      await removeDir(t.dir);
    });
    const base = `http://127.0.0.1:${(t.bd.app.server.address() as AddressInfo).port}`;
    const client = createHttpClient({ baseUrl: base, token: TOKENS.default, idleTimeoutMs: 2_500, retry: { initialMs: 100, maxMs: 200 } });
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const c = collect();
    void (async () => {
      try {
        for await (const _ of client.streamEvents({}, { signal: controller.signal, onConnection: c.onConnection })) void _;
      } catch {
        // Ended by the abort.
      }
    })();
    await waitFor(() => c.states.includes('open'), 'the stream to open');
    // Idle for several heartbeats: no event at all, and the connection is still the first one.
    await new Promise((r) => setTimeout(r, 3 * SSE_HEARTBEAT_MS + 500));
    expect(c.states).toEqual(['open']);
    await t.close();
    await waitFor(() => c.states.includes('lost'), 'the stopped server to be noticed');
    expect(c.states).toEqual(['open', 'lost']);
  });

  it('a server that goes silent (no heartbeat) is reported lost after the idle timeout, and the stream reconnects', async () => {
    let connections = 0;
    const silent = http.createServer((req, res) => {
      connections++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One event, then nothing: a hung server or a dead network path.
      res.write(`id: ${connections}\ndata: ${JSON.stringify({ seq: connections, job_id: 'j', event: 'job.queued', status: 'info', message: null, duration_ms: null, error_type: null, labels: {}, recorded_at: new Date().toISOString() })}\n\n`);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => silent.close(() => r())));
    cleanups.push(async () => void silent.closeAllConnections());
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, token: 'x', idleTimeoutMs: 300, retry: { initialMs: 50, maxMs: 100 } });
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const c = collect();
    const seqs: number[] = [];
    void (async () => {
      try {
        for await (const e of client.streamEvents({}, { signal: controller.signal, onConnection: c.onConnection })) seqs.push(e.seq);
      } catch {
        // Ended by the abort.
      }
    })();
    await waitFor(() => c.states.length >= 3, 'open, lost, open again');
    expect(c.states.slice(0, 3)).toEqual(['open', 'lost', 'open']);
    await waitFor(() => seqs.length >= 2, 'the event of the second connection');
    expect(seqs.slice(0, 2)).toEqual([1, 2]);
  });
});
