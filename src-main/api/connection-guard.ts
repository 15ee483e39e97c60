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
  /** A request on it passed authentication: a client with a token, not a stranger. */
  authenticated: boolean;
  /** Requests in progress (received, not yet answered). */
  busy: number;
  idleTimer: NodeJS.Timeout | undefined;
};

export type ConnectionGuardOptions = {
  /** Open connections from one source (all of loopback is one source). */
  maxPerSource: number;
  /** A connection that has not authenticated is closed after this long without a request in progress. */
  idleUnauthenticatedMs: number;
};

/**
 * Keeps one local program from taking the API away from everyone. Connections are counted per
 * source (sourceOf: all of 127.0.0.0/8 is one). At the cap, a new connection takes the place of
 * the oldest one that has neither authenticated nor a request in progress, so idle strangers can
 * never lock out a client with a token or a /healthz probe; only when every connection of the
 * source is authenticated or busy is the new one refused (503). Connections that have not
 * authenticated are also closed after a short idle time.
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

  /** Called by the request screen when a request on `socket` authenticated. */
  markAuthenticated(socket: Socket): void {
    const tracked = this.bySocket.get(socket);
    if (!tracked || tracked.authenticated) return;
    tracked.authenticated = true;
    clearTimeout(tracked.idleTimer);
  }

  /** Open connections of a source (`loopback` for this machine). */
  openFrom(source: string): number {
    return this.bySource.get(source)?.size ?? 0;
  }

  /** Idle unauthenticated connections closed to make room for new ones. */
  get evicted(): number {
    return this.evictedCount;
  }

  private onConnection(socket: Socket): void {
    const source = sourceOf(socket.remoteAddress);
    let open = this.bySource.get(source);
    if (!open) {
      open = new Set();
      this.bySource.set(source, open);
    }
    if (open.size >= this.options.maxPerSource && !this.evictIdleStranger(open)) {
      refusedSockets.add(socket);
      const problem = new ProblemError(503, 'too_many_connections', `too many open connections from this machine (limit ${this.options.maxPerSource}); close some and retry`, undefined, {
        'retry-after': '1',
      });
      socket.end(rawProblemResponse(problem));
      socket.once('finish', () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    const tracked: Tracked = { socket, source, authenticated: false, busy: 0, idleTimer: undefined };
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

  /** Closes the oldest connection of the set that has not authenticated and has no request in progress. */
  private evictIdleStranger(open: Set<Tracked>): boolean {
    for (const tracked of open) {
      if (tracked.authenticated || tracked.busy > 0) continue;
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
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      tracked.busy--;
      if (tracked.busy === 0) this.armIdleTimer(tracked);
    };
    response.once('finish', finished);
    response.once('close', finished);
  }

  private armIdleTimer(tracked: Tracked): void {
    if (tracked.authenticated) return;
    clearTimeout(tracked.idleTimer);
    tracked.idleTimer = setTimeout(() => {
      if (!tracked.authenticated && tracked.busy === 0) tracked.socket.destroy();
    }, this.options.idleUnauthenticatedMs);
    tracked.idleTimer.unref();
  }
}
