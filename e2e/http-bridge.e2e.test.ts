import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchdeskApiError, isTerminal, type BenchdeskApi, type JobEvent } from '../shared';
import { createHttpBridge } from '../src-renderer/bridge/http-bridge';
import { freePort, requireBuilt, startServer, type ServerProcess } from './support';

/**
 * The renderer's HTTP bridge (browser-mode window.api) against the real headless server, in Node:
 * every method's route, problem bodies as BenchdeskApiError, and the fetch-based SSE stream.
 */

async function rejection(promise: Promise<unknown>): Promise<BenchdeskApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof BenchdeskApiError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('HTTP bridge against the headless server', () => {
  const token = randomBytes(24).toString('base64url');
  let dataDir = '';
  let server: ServerProcess | undefined;
  let api: BenchdeskApi;

  beforeAll(async () => {
    requireBuilt(['dist/main/server.js']);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-bridge-e2e-'));
    server = await startServer({
      BENCHDESK_HOST: '127.0.0.1',
      BENCHDESK_PORT: String(await freePort()),
      BENCHDESK_DATA_DIR: dataDir,
      SERVICE_API_TOKENS: `default:${token}`,
    });
    api = createHttpBridge({ token, baseUrl: server.baseUrl, retry: { initialMs: 200, maxMs: 1_000 } });
  });

  afterAll(async () => {
    await api?.unsubscribeJobEvents({ job_id: null }).catch(() => undefined);
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads health, the catalog and the metrics summary', async () => {
    expect(api.transport).toBe('http');
    const health = await api.getHealth(undefined);
    expect(health.status).toBe('ok');
    expect(health.auth).toBe('enabled');
    const catalog = await api.listCatalog(undefined);
    expect(Array.isArray(catalog.models)).toBe(true);
    const metrics = await api.getMetricsSummary({});
    expect(Array.isArray(metrics.events)).toBe(true);
  });

  it('turns problem bodies into BenchdeskApiError', async () => {
    if (!server) throw new Error('setup failed');
    const wrongToken = createHttpBridge({ token: 'not-the-token', baseUrl: server.baseUrl });
    const unauthorized = await rejection(wrongToken.listJobs({}));
    expect(unauthorized.problem.status).toBe(401);
    expect(unauthorized.problem.code).toBe('unauthorized');

    const notFound = await rejection(api.getJob({ job_id: 'no-such-job' }));
    expect(notFound.problem.status).toBe(404);

    const invalid = await rejection(api.createJob({ kind: 'llm-instance', request: { marketplace: false, nonsense: 1 } }));
    expect(invalid.problem.status).toBe(422);
    expect(invalid.problem.errors?.length).toBeGreaterThan(0);

    // Checked before any request, with the same 422 shape as IPC.
    const badQuery = await rejection(api.listJobs({ limit: 100_000 }));
    expect(badQuery.problem.status).toBe(422);

    const allJobs = await rejection(api.subscribeJobEvents({ job_id: null }));
    expect(allJobs.problem.status).toBe(400);
    const unknownStream = await rejection(api.subscribeJobEvents({ job_id: 'no-such-job' }));
    expect(unknownStream.problem.status).toBe(404);
  });

  it('creates a job idempotently, lists it and streams its events over SSE', async () => {
    const closedPort = await freePort();
    const request = { marketplace: false, backend_url: `http://127.0.0.1:${closedPort}`, backend_warmup: false };
    const key = `e2e-${randomBytes(6).toString('hex')}`;
    const accepted = await api.createJob({ kind: 'llm-instance', request, idempotency_key: key });
    expect(accepted.status).toBe('accepted');
    const replayed = await api.createJob({ kind: 'llm-instance', request, idempotency_key: key });
    expect(replayed.job_id).toBe(accepted.job_id);

    const streamed: JobEvent[] = [];
    const off = api.onJobEvent((event) => {
      if (event.job_id === accepted.job_id) streamed.push(event);
    });
    try {
      expect(await api.subscribeJobEvents({ job_id: accepted.job_id })).toEqual({ subscribed: true });

      // Nothing listens on the backend port, so the job ends (failed) on its own.
      const job = await until('the job to finish', async () => {
        const current = await api.getJob({ job_id: accepted.job_id });
        return isTerminal(current.status) ? current : undefined;
      });
      expect(job.kind).toBe('llm-instance');

      const { events } = await api.getJobEvents({ job_id: accepted.job_id });
      expect(events.length).toBeGreaterThan(0);
      const stored = events.map((e) => e.seq);
      await until('every stored event on the stream', async () =>
        stored.every((seq) => streamed.some((e) => e.seq === seq)) ? true : undefined,
      );
      // Delivered once each, in order.
      const seqs = streamed.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);

      const first = events[0];
      if (!first) throw new Error('no events');
      const after = await api.getJobEvents({ job_id: accepted.job_id, after: first.seq });
      expect(after.events.map((e) => e.seq)).toEqual(stored.slice(1));

      const list = await api.listJobs({ kind: 'llm-instance', limit: 10 });
      expect(list.jobs.map((j) => j.job_id)).toContain(accepted.job_id);

      // Cancelling a finished job answers either its final status or a problem, never anything else.
      const cancel = await api.cancelJob({ job_id: accepted.job_id }).then(
        (res) => res.status,
        (err: unknown) => {
          if (err instanceof BenchdeskApiError) return err.problem.code;
          throw err;
        },
      );
      expect(typeof cancel).toBe('string');
    } finally {
      off();
      await api.unsubscribeJobEvents({ job_id: accepted.job_id });
    }
  });
});

describe('HTTP bridge event stream resumption (fake server)', () => {
  const jobId = 'job-resume';
  const connections: (string | null)[] = [];
  let status: 'running' | 'succeeded' = 'running';
  let server: Server;
  let baseUrl = '';

  const event = (seq: number, name: string) => ({
    seq,
    job_id: jobId,
    event: name,
    status: 'info',
    message: null,
    duration_ms: null,
    error_type: null,
    labels: {},
    recorded_at: '2026-01-01T00:00:00Z',
  });
  const frame = (seq: number, name: string) => `id: ${seq}\nevent: ${name}\ndata: ${JSON.stringify(event(seq, name))}\n\n`;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === `/v1/jobs/${jobId}/events` && req.headers.accept === 'text/event-stream') {
        const lastEventId = typeof req.headers['last-event-id'] === 'string' ? req.headers['last-event-id'] : null;
        connections.push(lastEventId);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (connections.length === 1) {
          // First connection: two events, a heartbeat, then the connection drops mid-job.
          res.end(`retry: 50\n\n${frame(1, 'job.queued')}: heartbeat\n\n${frame(2, 'job.running')}`);
        } else {
          status = 'succeeded';
          res.end(frame(3, 'job.succeeded'));
        }
        return;
      }
      if (req.url === `/v1/jobs/${jobId}`) {
        const at = '2026-01-01T00:00:00Z';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            job_id: jobId,
            tenant_id: 'default',
            kind: 'benchmark',
            status,
            message: '',
            created_at: at,
            started_at: at,
            finished_at: status === 'succeeded' ? at : null,
            updated_at: at,
            request: {},
            progress: null,
            result: null,
            error: null,
            error_code: null,
            resources: null,
          }),
        );
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reconnects with Last-Event-ID and stops once the job is over', async () => {
    const bridge = createHttpBridge({ token: 't', baseUrl, retry: { initialMs: 1_000, maxMs: 1_000 } });
    const seen: number[] = [];
    bridge.onJobEvent((e) => seen.push(e.seq));
    await bridge.subscribeJobEvents({ job_id: jobId });
    await until('three events', async () => (seen.length >= 3 ? true : undefined), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual([1, 2, 3]);
    // The server's `retry: 50` beat the 1 s default, and the resume named the last event seen.
    expect(connections).toEqual([null, '2']);
  });
});
