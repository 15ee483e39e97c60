import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS, JobEventSchema, StreamResetSchema, isStreamReset, type JobEvent } from '../../shared';
import { createHttpClient } from '../../shared/client';
import { bodies } from '../helpers/handlers';
import { TOKENS, makeBench, removeDir, tmpDir, waitFor, waitForStatus, type BenchOptions, type TestBench } from '../helpers/bench';
import { openSse, type SseStream } from '../helpers/sse';
import { DEFAULT_EVENT_STREAM_LIMITS } from '../../src-main/api/sse';

/**
 * Issue 25 item 11: event streams respect backpressure. A client that stops reading is
 * disconnected once what waits for it passes a bound (and resumes with Last-Event-ID); a resume
 * position the server never handed out is a 422; one older than what it still holds is a `reset`
 * event, never a silent gap.
 */

const benches: TestBench[] = [];
const streams: SseStream[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of streams.splice(0)) await s.close();
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

async function bench(options: BenchOptions = {}): Promise<{ t: TestBench; base: string; port: number }> {
  const t = await makeBench({ start: true, ...options });
  benches.push(t);
  const port = (t.bd.app.server.address() as { port: number }).port;
  return { t, base: `http://127.0.0.1:${port}`, port };
}

const auth = { authorization: `Bearer ${TOKENS.default}` };

async function submit(base: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base}/v1/jobs/benchmark`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { job_id: string }).job_id;
}

/** Opens an SSE request on a raw socket and never reads it: the client a stalled program would be. */
async function stalledClient(port: number, path: string): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\nAccept: text/event-stream\r\n\r\n`);
  // Read the response head, then stop reading: everything after stays unread.
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.pause();
  return { socket, closed };
}

describe('event streams and clients that do not read', () => {
  it('closes the streams of clients that never read, keeps what the server buffers bounded, and a reading client still gets every event', { timeout: 120_000 }, async () => {
    const limits = { maxQueuedEvents: 50, maxBufferedBytes: 256 * 1024 };
    const { t, base, port } = await bench({ extra: { streamLimits: limits } });
    // Every socket of the server, to measure what it holds for them without trusting its own counters.
    const serverSockets = new Set<net.Socket>();
    t.bd.app.server.on('connection', (s: net.Socket) => serverSockets.add(s));
    const serverBuffered = () => [...serverSockets].reduce((sum, s) => sum + (s.destroyed ? 0 : s.writableLength), 0);

    const id = await submit(base, bodies.benchmark('hold'));
    await t.recorder.startedJob(id);

    const stalled = [
      ...(await Promise.all(Array.from({ length: 8 }, () => stalledClient(port, API_PATHS.events)))),
      ...(await Promise.all(Array.from({ length: 2 }, () => stalledClient(port, API_PATHS.jobEvents(id))))),
    ];
    await waitFor(() => t.bd.app.eventStreams.openCount === stalled.length, 'the stalled streams to open');

    // A client that reads (the typed client, which resumes with Last-Event-ID if it is ever cut off).
    const client = createHttpClient({ baseUrl: base, token: TOKENS.default, retry: { initialMs: 20, maxMs: 100 } });
    const stop = new AbortController();
    const received: JobEvent[] = [];
    const reader = (async () => {
      for await (const item of client.streamEvents({}, { signal: stop.signal })) {
        if (isStreamReset(item)) throw new Error(`unexpected reset: ${item.message}`);
        if (item.job_id === id && item.event === 'test.blob') received.push(item);
      }
    })().catch((err: unknown) => (stop.signal.aborted ? undefined : Promise.reject(err)));
    await waitFor(() => t.bd.app.eventStreams.openCount === stalled.length + 1, 'the reader to subscribe');

    // 600 events of 16 KB: 9.6 MB for every stream, far more than the sockets' kernel buffers.
    const EVENTS = 600;
    const blob = 'x'.repeat(16 * 1024);
    let peak = 0;
    let peakCounted = 0;
    for (let i = 0; i < EVENTS; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_x, k) => t.bd.engine.emit(id, { event: 'test.blob', status: 'info', message: blob, labels: { n: i + k } })));
      await new Promise((r) => setImmediate(r));
      peak = Math.max(peak, serverBuffered());
      peakCounted = Math.max(peakCounted, t.bd.app.eventStreams.bufferedBytes());
    }

    // What the server held for all of them stayed within the bounds (a frame past each).
    const perStream = limits.maxBufferedBytes + 20 * 1024;
    expect(peak).toBeLessThanOrEqual((stalled.length + 1) * perStream);
    expect(peakCounted).toBeLessThanOrEqual((stalled.length + 1) * perStream);
    // Every client that never read was disconnected by the server: only the reader is still open,
    // and a stalled client that reads now gets what was in flight, then the end of the connection.
    expect(t.bd.app.eventStreams.openCount).toBe(1);
    expect(t.bd.app.eventStreams.closedForBackpressure).toBe(stalled.length);
    for (const s of stalled) s.socket.resume();
    await Promise.all(stalled.map((s) => s.closed));

    // The reading client got every event, in order, without gaps or duplicates.
    await waitFor(() => received.length >= EVENTS, `the reader to get ${EVENTS} events (has ${received.length})`, 30_000);
    expect(received.map((e) => e.labels.n)).toEqual(Array.from({ length: EVENTS }, (_x, n) => n));
    stop.abort();
    await reader;
    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
  });
});

describe('stalled readers with the default bounds (issue 34 item 5)', () => {
  it('60 stalled readers: every one dropped, what the server holds for them bounded by the defaults', { timeout: 120_000 }, async () => {
    const { t, port } = await bench();
    const serverSockets = new Set<net.Socket>();
    t.bd.app.server.on('connection', (s: net.Socket) => serverSockets.add(s));
    const serverBuffered = () => [...serverSockets].reduce((sum, s) => sum + (s.destroyed ? 0 : s.writableLength), 0);
    const id = await submit(`http://127.0.0.1:${port}`, bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const stalled = await Promise.all(Array.from({ length: 60 }, () => stalledClient(port, API_PATHS.events)));
    await waitFor(() => t.bd.app.eventStreams.openCount === stalled.length, 'the stalled streams to open');
    // 400 events of 16 KB: 6.4 MB for every stream.
    const blob = 'x'.repeat(16 * 1024);
    let peak = 0;
    for (let i = 0; i < 400; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_x, k) => t.bd.engine.emit(id, { event: 'test.blob', status: 'info', message: blob, labels: { n: i + k } })));
      await new Promise((r) => setImmediate(r));
      peak = Math.max(peak, serverBuffered(), t.bd.app.eventStreams.bufferedBytes());
    }
    // 256 KiB written and unread per stream at most (and a frame past it), whatever was sent.
    expect(DEFAULT_EVENT_STREAM_LIMITS.maxBufferedBytes).toBeLessThanOrEqual(256 * 1024);
    expect(peak).toBeLessThanOrEqual(stalled.length * (256 * 1024 + 20 * 1024));
    await waitFor(() => t.bd.app.eventStreams.closedForBackpressure === stalled.length, 'every stalled reader to be dropped');
    expect(t.bd.app.eventStreams.openCount).toBe(0);
    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
  });

  it('a reader that takes nothing for the stall bound is dropped, even with little waiting', async () => {
    // Only the stall bound can drop it here: the others are set far away.
    const { t, port } = await bench({ extra: { streamLimits: { maxStallMs: 300, maxQueuedBytes: 256 * 1024 * 1024, maxQueuedEvents: 100_000, maxBufferedBytes: 256 * 1024 * 1024 } } });
    const id = await submit(`http://127.0.0.1:${port}`, bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const reader = await stalledClient(port, API_PATHS.events);
    await waitFor(() => t.bd.app.eventStreams.openCount === 1, 'the stream to open');
    // Enough to fill the kernel's socket buffers (a client that reads nothing takes a few MB there).
    for (let i = 0; i < 60 && t.bd.app.eventStreams.openCount === 1; i++) await t.bd.engine.emit(id, { event: 'test.blob', status: 'info', message: 'y'.repeat(200 * 1024), labels: { n: i } });
    await waitFor(() => t.bd.app.eventStreams.openCount === 0, 'the stalled reader to be dropped');
    expect(t.bd.app.eventStreams.closedForBackpressure).toBe(1);
    // It reads now: what was in flight, then the end of the connection.
    reader.socket.resume();
    await reader.closed;
    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
  });
});

describe('resume positions', () => {
  it('a Last-Event-ID (or after=) above the newest seq is a 422 problem on both streams, as a malformed one is', async () => {
    const { t, base } = await bench();
    const id = await submit(base, bodies.benchmark('ok'));
    await waitForStatus(t.bd, id, 'succeeded');
    const ahead = String(t.bd.store.lastSeq + 1);
    const cases: [string, Record<string, string>][] = [
      [API_PATHS.events, { 'last-event-id': ahead }],
      [`${API_PATHS.events}?after=${ahead}`, {}],
      [API_PATHS.jobEvents(id), { 'last-event-id': ahead }],
      [`${API_PATHS.jobEvents(id)}?after=${ahead}`, {}],
    ];
    for (const [path, headers] of cases) {
      const res = await fetch(`${base}${path}`, { headers: { ...auth, accept: 'text/event-stream', ...headers } });
      expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'unknown_event_id', detail: expect.stringContaining(ahead) });
    }
    // The JSON list of a job's events says the same of an `after` it never handed out.
    const list = await fetch(`${base}${API_PATHS.jobEvents(id)}?after=${ahead}`, { headers: auth });
    expect(list.status).toBe(422);
    // Malformed positions are refused alike in the query and in the header (not read as 0 or ignored).
    for (const bad of ['abc', '-1', '1e3', '0x10', '1.5', '']) {
      for (const [path, headers] of [
        [`${API_PATHS.jobEvents(id)}?after=${encodeURIComponent(bad)}`, {}],
        [API_PATHS.jobEvents(id), { 'last-event-id': bad }],
        [API_PATHS.events, { 'last-event-id': bad }],
      ] as [string, Record<string, string>][]) {
        if (bad === '' && 'last-event-id' in headers) continue; // an empty header is no header
        const res = await fetch(`${base}${path}`, { headers: { ...auth, accept: 'text/event-stream', ...headers } });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(422);
        await res.body?.cancel();
      }
      const limit = await fetch(`${base}/v1/jobs?limit=${encodeURIComponent(bad)}`, { headers: auth });
      expect(limit.status, `limit=${bad}`).toBe(422);
    }
  });

  it('resuming the feed from before a restart gets a reset event, then live events (never a silent gap)', async () => {
    const dir = await tmpDir();
    const first = await makeBench({ start: true, dir });
    const port1 = (first.bd.app.server.address() as { port: number }).port;
    const before = await submit(`http://127.0.0.1:${port1}`, bodies.benchmark('ok'));
    await waitForStatus(first.bd, before, 'succeeded');
    const seen = (await first.bd.store.listEvents(before)).map((e) => e.seq);
    await first.close();

    const { t, base } = await bench({ dir });
    const resumeFrom = seen[0] as number; // the client saw only the first event before the restart
    const s = await openSse(`${base}${API_PATHS.events}`, { ...auth, 'last-event-id': String(resumeFrom) });
    streams.push(s);
    expect(s.status).toBe(200);
    const [frame] = await s.collect(() => true);
    expect(frame?.event).toBe('reset');
    const reset = StreamResetSchema.parse(JSON.parse(frame?.data ?? 'null'));
    expect(reset).toMatchObject({ reset: true, after: resumeFrom });
    expect(frame?.id).toBe(String(reset.seq));
    expect(reset.seq).toBeGreaterThanOrEqual(seen.at(-1) as number);

    // The stream goes on live.
    const after = await submit(base, bodies.benchmark('ok'));
    const live = await s.collect((f) => f.data?.includes('"job.succeeded"') ?? false);
    const events = live.map((f) => JobEventSchema.parse(JSON.parse(f.data ?? 'null')));
    expect(events.every((e) => e.job_id === after && e.seq > reset.seq)).toBe(true);
    await waitForStatus(t.bd, after, 'succeeded');

    // A position it still holds resumes without a reset.
    const resumed = await openSse(`${base}${API_PATHS.events}`, { ...auth, 'last-event-id': String(reset.seq) });
    streams.push(resumed);
    const again = await resumed.collect((f) => f.data?.includes('"job.succeeded"') ?? false);
    expect(again.some((f) => f.event === 'reset')).toBe(false);
    expect(again.map((f) => Number(f.id))).toEqual(events.map((e) => e.seq));
  });

  it('the typed client turns a reconnect to a server that never sent its last id into a reset, and starts again', async () => {
    const dir = await tmpDir();
    const { t, base } = await bench({ dir });
    const id = await submit(base, bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    // A fetch that sends the first connection to this server and later ones after "replacing" it:
    // its Last-Event-ID is then beyond anything this server handed out.
    let connections = 0;
    const fakeFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get('accept') === 'text/event-stream' && ++connections === 2) headers.set('Last-Event-ID', String(t.bd.store.lastSeq + 10));
      return fetch(input, { ...init, headers });
    };
    const client = createHttpClient({ baseUrl: base, token: TOKENS.default, fetch: fakeFetch, retry: { initialMs: 10, maxMs: 50 } });
    const items: string[] = [];
    const stop = new AbortController();
    const done = (async () => {
      for await (const item of client.streamJobEvents({ job_id: id }, { signal: stop.signal })) {
        items.push(isStreamReset(item) ? 'reset' : item.event);
        if (items.length === 2) {
          // Drop the first connection: the client reconnects (and the fake fetch sends a foreign id).
          await t.bd.app.eventStreams.endAll();
        }
        if (!isStreamReset(item) && item.event === 'job.succeeded') break;
      }
    })();
    await waitFor(() => items.includes('reset'), 'the reset');
    t.recorder.release(id);
    await done;
    stop.abort();
    // Before the reset: queued, running; after it the job's events from the start, to the end.
    expect(items.slice(0, 3)).toEqual(['job.queued', 'job.running', 'reset']);
    expect(items.slice(3)).toEqual(expect.arrayContaining(['job.queued', 'job.running', 'job.succeeded']));
    expect(connections).toBeGreaterThanOrEqual(3);
  });
});
