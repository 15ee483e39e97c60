import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { DEFAULT_HTTP_LIMITS } from '../../src-main/api/http-limits';
import { TOKENS, json, makeBench, removeDir, waitFor, type BenchOptions, type TestBench } from '../helpers/bench';
import { openSocket, portOf, type OpenSocket } from './raw-http';

/**
 * Issue 25 item 12: one local program must not deny the API to everyone. Idle connections that
 * never authenticate are closed fast and give way to new ones; all of 127.0.0.0/8 is one source
 * for the connection cap and the failed-login lockout. Real sockets on loopback, default limits
 * unless a test says otherwise.
 */

const benches: TestBench[] = [];
const sockets: OpenSocket[] = [];
async function server(limits: NonNullable<BenchOptions['extra']>['httpLimits'] = {}): Promise<{ t: TestBench; port: number; base: string }> {
  const t = await makeBench({ start: true, extra: { httpLimits: limits } });
  benches.push(t);
  const port = portOf(t.bd.app);
  return { t, port, base: `http://127.0.0.1:${port}` };
}
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

async function idle(port: number, count: number, localAddress?: string): Promise<OpenSocket[]> {
  const opened = await Promise.all(Array.from({ length: count }, () => openSocket(port, localAddress ? { localAddress } : {})));
  sockets.push(...opened);
  return opened;
}

function serverConnections(t: TestBench): Promise<number> {
  return new Promise((resolve, reject) => t.bd.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/** What a client with a token and a health probe get, each on a new connection. */
async function stillServed(base: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const jobs = await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: `Bearer ${TOKENS.default}`, connection: 'close' } });
    expect(jobs.status).toBe(200);
    await jobs.body?.cancel();
    const health = await fetch(`${base}${API_PATHS.health}`, { headers: { connection: 'close' } });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  }
}

describe('connections that never authenticate', () => {
  it('128 idle unauthenticated connections never make an authenticated request or /healthz fail', async () => {
    const { t, port, base } = await server();
    const held = await idle(port, DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
    await waitFor(async () => (await serverConnections(t)) === held.length, 'the server to hold them all');
    await stillServed(base);
    // Each new connection took the place of an idle stranger: the cap still holds.
    expect(await serverConnections(t)).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
    expect(t.bd.app.connections.evicted).toBeGreaterThan(0);
  });

  it('connections from ten 127.x addresses are one source: the server never holds more than the cap, and still serves', async () => {
    const { t, port, base } = await server();
    // 200 connections from 127.0.0.1 … 127.0.0.10: under the cap per address, over it for the machine.
    for (let i = 1; i <= 10; i++) await idle(port, 20, `127.0.0.${i}`);
    await waitFor(async () => sockets.filter((s) => !s.socket.destroyed && s.socket.readyState === 'open').length <= DEFAULT_HTTP_LIMITS.maxConnectionsPerIp, 'the surplus to be closed');
    expect(await serverConnections(t)).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
    expect(t.bd.app.connections.openFrom('loopback')).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
    await stillServed(base);
  });

  it('an idle connection that has not authenticated is closed after a few seconds; an authenticated one is kept', async () => {
    // The defaults: a header timeout and an idle limit of a few seconds.
    expect(DEFAULT_HTTP_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(5_000);
    expect(DEFAULT_HTTP_LIMITS.idleUnauthenticatedMs).toBeLessThanOrEqual(5_000);
    const { port } = await server({ idleUnauthenticatedMs: 300 });
    const [silent] = await idle(port, 1);
    // A /healthz probe on a keep-alive connection is not authentication either.
    const [prober] = await idle(port, 1);
    prober?.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const [client] = await idle(port, 1);
    client?.socket.write(`GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\n\r\n`);
    expect(await silent?.closedWithin(5_000)).toBe(true);
    expect(await prober?.closedWithin(5_000)).toBe(true);
    expect(prober?.received()).toMatch(/^HTTP\/1\.1 200/);
    // Several idle limits later, the authenticated keep-alive connection is still open.
    expect(await client?.closedWithin(1_500)).toBe(false);
    expect(client?.received()).toMatch(/^HTTP\/1\.1 200/);
  });

  it('says how long an unauthenticated connection stays open when idle, so a keep-alive client stops reusing it first (no ECONNRESET)', async () => {
    // A client that reuses a connection the server is closing gets ECONNRESET (a fresh-clone e2e
    // run failed so: a /healthz probe, then a POST on the same connection as the idle limit hit).
    const { t, port, base } = await server({ idleUnauthenticatedMs: 4_000 });
    const [prober, client] = await idle(port, 2);
    prober?.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    client?.socket.write(`GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\n\r\n`);
    await waitFor(() => Boolean(prober?.received().includes('\r\n\r\n') && client?.received().includes('\r\n\r\n')), 'both answers');
    expect(prober?.received()).toMatch(/\r\nkeep-alive: timeout=4\r\n/i);
    // An authenticated connection is kept for node's keep-alive timeout, which node advertises.
    const authenticatedHint = /\r\nkeep-alive: timeout=(\d+)/i.exec(client?.received() ?? '');
    expect(Number(authenticatedHint?.[1])).toBeGreaterThan(4);

    // Node's fetch (undici) honours the hint: it closes the connection before the server does.
    const closedBy: string[] = [];
    t.bd.app.server.once('connection', (socket) => {
      let clientEnded = false;
      socket.once('end', () => (clientEnded = true));
      socket.once('close', () => closedBy.push(clientEnded ? 'client' : 'server'));
    });
    const health = await fetch(`${base}${API_PATHS.health}`);
    expect(health.headers.get('keep-alive')).toBe('timeout=4');
    await health.text();
    await waitFor(() => closedBy.length > 0, 'the probe connection to close', 10_000);
    expect(closedBy).toEqual(['client']);
  });
});

/** Connections that authenticated as `tenant` with one request, then stay open: idle keep-alive, or a live event stream. */
async function tenantConnections(port: number, count: number, tenant: keyof typeof TOKENS, kind: 'idle' | 'stream'): Promise<OpenSocket[]> {
  const opened = await idle(port, count);
  const path = kind === 'idle' ? API_PATHS.jobs : API_PATHS.events;
  const accept = kind === 'stream' ? 'Accept: text/event-stream\r\n' : '';
  for (const s of opened) s.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS[tenant]}\r\nX-Tenant-ID: ${tenant}\r\n${accept}\r\n`);
  await waitFor(() => opened.every((s) => s.received().includes('\r\n\r\n') || s.socket.destroyed), `the ${count} requests of ${tenant} to be answered`);
  return opened;
}

describe('one tenant cannot lock everyone out (issue 34 item 5)', () => {
  it('128 idle authenticated connections of one tenant: /healthz, another tenant and the same tenant are still served', async () => {
    const { t, port, base } = await server();
    const held = await tenantConnections(port, DEFAULT_HTTP_LIMITS.maxConnectionsPerIp, 'acme', 'idle');
    // Up to its share they were served; past it, its own idle ones made room for the next.
    expect(held.filter((s) => /^HTTP\/1\.1 200/.test(s.received())).length).toBe(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
    expect(t.bd.app.connections.heldBy('acme')).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.maxConnectionsPerTenant);
    await stillServed(base);
    const acme = await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: `Bearer ${TOKENS.acme}`, 'x-tenant-id': 'acme', connection: 'close' } });
    expect(acme.status).toBe(200);
    expect(await serverConnections(t)).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
  });

  it('128 live event streams of one tenant: it gets its share, the rest a 503; /healthz and another tenant are still served', { timeout: 60_000 }, async () => {
    const { t, port, base } = await server();
    const streams = await tenantConnections(port, DEFAULT_HTTP_LIMITS.maxConnectionsPerIp, 'acme', 'stream');
    const served = streams.filter((s) => /^HTTP\/1\.1 200/.test(s.received()));
    const refused = streams.filter((s) => /^HTTP\/1\.1 503/.test(s.received()));
    expect(served).toHaveLength(DEFAULT_HTTP_LIMITS.maxConnectionsPerTenant);
    expect(refused).toHaveLength(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp - DEFAULT_HTTP_LIMITS.maxConnectionsPerTenant);
    expect(refused[0]?.received()).toContain('too_many_connections');
    await stillServed(base);
    // The other tenant fills the rest with streams too: every connection is busy, /healthz still answers (the reserve).
    const others = await tenantConnections(port, DEFAULT_HTTP_LIMITS.maxConnectionsPerIp - DEFAULT_HTTP_LIMITS.maxConnectionsPerTenant, 'default', 'stream');
    expect(others.every((s) => /^HTTP\/1\.1 200/.test(s.received()))).toBe(true);
    const health = await fetch(`${base}${API_PATHS.health}`, { headers: { connection: 'close' } });
    expect(health.status).toBe(200);
    const crowded = await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: `Bearer ${TOKENS.default}`, connection: 'close' } });
    expect(crowded.status).toBe(503);
    expect(t.bd.app.eventStreams.openCount).toBe(DEFAULT_HTTP_LIMITS.maxConnectionsPerIp);
  });
});

describe('the failed-login lockout', () => {
  it('counts all of 127.0.0.0/8 as one source: ten failures spread over ten addresses lock the machine out', async () => {
    const { t } = await server();
    for (let i = 2; i <= 11; i++) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { authorization: 'Bearer wrong-token' }, remoteAddress: `127.0.0.${i}` });
      expect(res.statusCode).toBe(401);
      expect(json(res).code).toBe('unauthorized');
    }
    const blocked = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: '127.0.0.12' });
    expect(blocked.statusCode).toBe(401);
    expect(json(blocked).code).toBe('auth_blocked');
    // /healthz still answers while locked out.
    expect((await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true, remoteAddress: '127.0.0.12' })).statusCode).toBe(200);
    t.clock.advance(61_000);
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs, remoteAddress: '::ffff:127.0.0.5' })).statusCode).toBe(200);
  });
});

