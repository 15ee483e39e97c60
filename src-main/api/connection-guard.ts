import type http from 'node:http';
import type { Socket } from 'node:net';
import { ProblemError } from '../app/problem-error';
import { rawProblemResponse } from './http-limits';
import { sourceOf } from './source-address';

/** Sockets refused by the connection cap: a request that still gets parsed on them is ignored. */
export const refusedSockets = new WeakSet<Socket>();

type Tracked = {
  socket: Socket;
  source: string;
  /** The tenant a request on it authenticated as: a client with a token, not a stranger. */
  tenant: string | undefined;
  /** Requests in progress (received, not yet answered). */
  busy: number;
  /** Taken above the cap: it may serve a /healthz probe, never a tenant. */
  reserve: boolean;
  idleTimer: NodeJS.Timeout | undefined;
  /** Answers in progress that may still say how long the connection stays open when idle. */
  answering: Set<http.ServerResponse>;
};

export type ConnectionGuardOptions = {
  /** Open connections from one source (all of loopback is one source). */
  maxPerSource: number;
  /** Connections one tenant may hold (from one source); the rest of the cap stays for others. */
  maxPerTenant: number;
  /** Connections above the cap kept for /healthz probes. */
  healthReserve: number;
  /** A connection that has not authenticated is closed after this long without a request in progress. */
  idleUnauthenticatedMs: number;
};

/**
 * Keeps one local program, or one tenant, from taking the API away from everyone (issue 25 item
 * 12, issue 34 item 5). Connections are counted per source (sourceOf: all of 127.0.0.0/8 is one)
 * and, once a request on them authenticated, per tenant.
 *
 * At the source's cap a new connection takes the place of the oldest idle one (no request in
 * progress): a stranger's first (never authenticated), else one of the tenant holding the most.
 * Idle keep-alive connections cost their client nothing to reopen, so 128 idle connections of
 * one tenant never lock anyone out. When every connection is busy, a few more are accepted as a
 * reserve for /healthz: a request that authenticates on one is refused (503). And a tenant may
 * hold at most maxPerTenant connections: past that its oldest idle one is closed, or, all busy,
 * the request is refused (503), so the rest of the cap always stays for other tenants.
 */
export class ConnectionGuard {
  private readonly bySource = new Map<string, Set<Tracked>>();
  private readonly bySocket = new WeakMap<Socket, Tracked>();
  private evictedCount = 0;

  constructor(private readonly options: ConnectionGuardOptions) {}

  attach(server: http.Server): void {
    server.on('connection', (socket: Socket) => this.onConnection(socket));
    // Before the request handler, which may answer at once.
    server.prependListener('request', (request: http.IncomingMessage, response: http.ServerResponse) => this.onRequest(request.socket, response));
  }

  /**
   * A request on `socket` authenticated as `tenantId`: the answer is a problem to send instead
   * when the tenant already holds its share, or the connection is a reserve one.
   */
  markAuthenticated(socket: Socket, tenantId: string): ProblemError | undefined {
    const tracked = this.bySocket.get(socket);
    if (!tracked || tracked.tenant === tenantId) return undefined;
    if (tracked.reserve) return this.refusal(`every connection this machine may open is in use (limit ${this.options.maxPerSource}); this one is kept for /healthz`);
    const open = this.bySource.get(tracked.source) ?? new Set<Tracked>();
    const held = [...open].filter((t) => t.tenant === tenantId);
    if (held.length >= this.options.maxPerTenant && !this.evictIdle(open, (t) => t.tenant === tenantId && t !== tracked)) {
      return this.refusal(`tenant ${tenantId} holds ${held.length} connections from this machine, the most one tenant may (the rest are kept for others); close some and retry`);
    }
    tracked.tenant = tenantId;
    clearTimeout(tracked.idleTimer);
    // Authenticated: the server's own keep-alive timeout applies, which node advertises itself.
    for (const response of tracked.answering) if (!response.headersSent) response.removeHeader('keep-alive');
    return undefined;
  }

  /** Open connections of a source (`loopback` for this machine). */
  openFrom(source: string): number {
    return this.bySource.get(source)?.size ?? 0;
  }

  /** Open connections of a tenant. */
  heldBy(tenantId: string): number {
    let count = 0;
    for (const open of this.bySource.values()) for (const t of open) if (t.tenant === tenantId) count++;
    return count;
  }

  /** Idle connections closed to make room for new ones. */
  get evicted(): number {
    return this.evictedCount;
  }

  private refusal(detail: string): ProblemError {
    return new ProblemError(503, 'too_many_connections', detail, undefined, { 'retry-after': '1' });
  }

  private onConnection(socket: Socket): void {
    const source = sourceOf(socket.remoteAddress);
    let open = this.bySource.get(source);
    if (!open) {
      open = new Set();
      this.bySource.set(source, open);
    }
    let reserve = false;
    if (open.size >= this.options.maxPerSource && !this.makeRoom(open)) {
      // Every connection is busy: a few more, for /healthz probes only.
      reserve = [...open].filter((t) => t.reserve).length < this.options.healthReserve;
      if (!reserve) return this.refuse(socket);
    }
    const tracked: Tracked = { socket, source, tenant: undefined, busy: 0, reserve, idleTimer: undefined, answering: new Set() };
    open.add(tracked);
    this.bySocket.set(socket, tracked);
    this.armIdleTimer(tracked);
    socket.once('close', () => {
      clearTimeout(tracked.idleTimer);
      const set = this.bySource.get(source);
      set?.delete(tracked);
      if (set?.size === 0) this.bySource.delete(source);
    });
  }

  private refuse(socket: Socket): void {
    refusedSockets.add(socket);
    const problem = this.refusal(`too many open connections from this machine (limit ${this.options.maxPerSource}); close some and retry`);
    socket.end(rawProblemResponse(problem));
    socket.once('finish', () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  /** Closes an idle connection: a stranger's, else one of the tenant holding the most. */
  private makeRoom(open: Set<Tracked>): boolean {
    if (this.evictIdle(open, (t) => t.tenant === undefined)) return true;
    const counts = new Map<string, number>();
    for (const t of open) if (t.tenant !== undefined) counts.set(t.tenant, (counts.get(t.tenant) ?? 0) + 1);
    const tenants = [...counts].sort((a, b) => b[1] - a[1]).map(([tenant]) => tenant);
    return tenants.some((tenant) => this.evictIdle(open, (t) => t.tenant === tenant));
  }

  /** Closes the oldest connection of the set that `matches` and has no request in progress. */
  private evictIdle(open: Set<Tracked>, matches: (t: Tracked) => boolean): boolean {
    for (const tracked of open) {
      if (tracked.busy > 0 || !matches(tracked)) continue;
      open.delete(tracked);
      clearTimeout(tracked.idleTimer);
      tracked.socket.destroy();
      this.evictedCount++;
      return true;
    }
    return false;
  }

  private onRequest(socket: Socket, response: http.ServerResponse): void {
    const tracked = this.bySocket.get(socket);
    if (!tracked) return;
    tracked.busy++;
    clearTimeout(tracked.idleTimer);
    if (tracked.tenant === undefined) {
      // This connection is closed sooner when idle than node's keep-alive timeout says: tell the
      // client, or it may reuse the connection just as it closes and get ECONNRESET (undici and
      // browsers stop reusing a connection before the advertised timeout).
      response.setHeader('keep-alive', `timeout=${Math.floor(this.options.idleUnauthenticatedMs / 1000)}`);
      tracked.answering.add(response);
    }
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      tracked.answering.delete(response);
      tracked.busy--;
      if (tracked.busy === 0) this.armIdleTimer(tracked);
    };
    response.once('finish', finished);
    response.once('close', finished);
  }

  private armIdleTimer(tracked: Tracked): void {
    if (tracked.tenant !== undefined) return;
    clearTimeout(tracked.idleTimer);
    tracked.idleTimer = setTimeout(() => {
      if (tracked.tenant === undefined && tracked.busy === 0) tracked.socket.destroy();
    }, this.options.idleUnauthenticatedMs);
    tracked.idleTimer.unref();
  }
}
