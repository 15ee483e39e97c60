import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { isLoopbackHost } from '../app/config';
import { readCredentials, type Authenticator } from './auth';
import type { Socket } from 'node:net';
import { refusedSockets } from './connection-guard';
import { sendProblem } from './problem-reply';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
  }
}

export type GuardOptions = {
  auth: Authenticator;
  /** Paths answered without credentials. */
  isPublic(path: string): boolean;
  /** When the server binds a non-loopback address, Host checks use that address too. */
  extraHosts?: readonly string[];
  /**
   * A request on this connection authenticated (the connection cap counts it for its tenant); a
   * problem answered instead when the tenant holds its share of connections already.
   */
  onAuthenticated?: (socket: Socket, tenantId: string) => ProblemError | undefined;
};

function hostName(hostHeader: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader);
  if (bracketed?.[1]) return `[${bracketed[1]}]`;
  return hostHeader.replace(/:\d+$/, '');
}

export const AUTH_NOT_CONFIGURED_DETAIL =
  'the API is not configured: set SERVICE_API_TOKENS="tenant:token" (comma-separated; a bare token means tenant "default"), ' +
  'or SERVICE_API_AUTH_DISABLED=1 for local development, and restart';

/** Guard rejections happen before the body is read: close the socket instead of reading it. */
function reject(reply: FastifyReply, problem: ProblemError): FastifyReply {
  reply.header('connection', 'close');
  return sendProblem(reply, problem);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A browser request made on behalf of another site. `Sec-Fetch-*` are set by browsers and cannot
 * be set by page scripts: `cross-site` (any other site, `<img>` included), `same-site` (another
 * port of localhost) unless it carries our own Origin, and `no-cors` subresource loads not from
 * our own pages. Such requests are refused before authentication, so they never count as failed
 * logins (ten of them would otherwise lock the user's own token out).
 */
function isForeignBrowserRequest(headers: IncomingHttpHeaders, ownOrigin: string): boolean {
  const site = single(headers['sec-fetch-site'])?.toLowerCase();
  const mode = single(headers['sec-fetch-mode'])?.toLowerCase();
  const origin = single(headers.origin);
  if (site === 'cross-site') return true;
  if (site === 'same-site' && origin !== ownOrigin) return true;
  return mode === 'no-cors' && site !== 'same-origin';
}

/** `GET http://other.example/v1/jobs HTTP/1.1`: a proxy-style request naming another host. */
function absoluteFormHost(url: string): string | null | undefined {
  if (url.startsWith('/')) return undefined;
  try {
    return hostName(new URL(url).host).toLowerCase();
  } catch {
    return null;
  }
}

/** How many Host lines the request carried (node keeps only the first in `headers`); no allocation per request. */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** What the screen reads of a request: node's own request object has all of it. */
export type ScreenedRequest = Pick<IncomingMessage, 'headers' | 'rawHeaders' | 'url' | 'socket'>;

export type ScreenVerdict =
  | { ok: true; /** undefined for a public path */ tenantId: string | undefined }
  /** Over the per-IP connection cap: the 503 is already written and the socket is closing. */
  | { ok: false; refusedSocket: true }
  | { ok: false; refusedSocket?: undefined; problem: ProblemError; /** Why authentication failed, for the log. */ authFailure?: string };

/** The request fields an accepted verdict was computed from, remembered per connection. */
type RememberedVerdict = {
  ip: string;
  generation: number;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | string[] | undefined;
  secFetchMode: string | string[] | undefined;
  authorization: string | undefined;
  apiKey: string | string[] | undefined;
  tenant: string | string[] | undefined;
  verdict: ScreenVerdict;
};

function sameFields(memo: RememberedVerdict, headers: IncomingHttpHeaders, ip: string): boolean {
  return (
    memo.host === headers.host &&
    memo.authorization === headers.authorization &&
    memo.ip === ip &&
    memo.origin === headers.origin &&
    memo.secFetchSite === headers['sec-fetch-site'] &&
    memo.secFetchMode === headers['sec-fetch-mode'] &&
    memo.apiKey === headers['x-api-key'] &&
    memo.tenant === headers['x-tenant-id']
  );
}

/**
 * The checks every request passes, in order: one loopback Host (DNS-rebinding) and no
 * absolute-form URI naming another host, no cross-origin or cross-site browser requests, then
 * authentication (or the "not configured" 404). One function for the fastify hook and the fast
 * job read, so the two cannot drift apart.
 *
 * `countFailures: false` leaves the failed-login limiter untouched (the fast read hands every
 * refusal to fastify, which screens again and counts it once).
 */
export function makeRequestScreen(options: GuardOptions) {
  const allowedHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  const isOurHost = (name: string) => isLoopbackHost(name) || allowedHosts.has(name);
  // A script's keep-alive connection sends the same Host, Origin and credentials on every request:
  // the last accepted verdict of each connection is reused while every field it was computed from
  // is the same, the token set has not changed (rotation) and the address is not locked out. On
  // the hot paths the checks and the token's SHA-256 were a quarter of a request's CPU (POST
  // /v1/estimates 0.58 → 0.68 of bare node in alternating runs). Like node's request objects, it
  // holds the header strings the client sent, until the connection closes (a WeakMap by socket).
  const remembered = new WeakMap<object, RememberedVerdict>();
  const { auth } = options;
  return function screen(request: ScreenedRequest, ip: string, countFailures: boolean): ScreenVerdict {
    if (refusedSockets.has(request.socket)) return { ok: false, refusedSocket: true };
    if (hostHeaderCount(request.rawHeaders) > 1) {
      return { ok: false, problem: new ProblemError(400, 'bad_request', 'send exactly one Host header') };
    }
    const { headers } = request;
    const memo = remembered.get(request.socket);
    // A block does not reach a connection whose remembered verdict is a valid token's: it would pass the block anyway.
    if (memo !== undefined && sameFields(memo, headers, ip) && memo.generation === auth.generation) {
      // The verdict depends on the URL only through an absolute-form target and the public paths.
      const url = request.url ?? '/';
      const query = url.indexOf('?');
      if (url.startsWith('/') && !options.isPublic(query < 0 ? url : url.slice(0, query))) return memo.verdict;
    }
    const verdict = screenAfresh(request, ip, countFailures);
    if (verdict.ok && verdict.tenantId === undefined) knownClientOnPublicPath(request);
    if (verdict.ok && verdict.tenantId !== undefined) {
      const refused = options.onAuthenticated?.(request.socket, verdict.tenantId);
      if (refused) return { ok: false, problem: refused };
      remembered.set(request.socket, {
        ip,
        generation: auth.generation,
        host: headers.host,
        origin: headers.origin,
        secFetchSite: headers['sec-fetch-site'],
        secFetchMode: headers['sec-fetch-mode'],
        authorization: headers.authorization,
        apiKey: headers['x-api-key'],
        tenant: headers['x-tenant-id'],
        verdict,
      });
    }
    return verdict;
  };

  /**
   * A public path asked with a valid token (a client polling /healthz, fetching the OpenAPI
   * document): its connection is a client's, not a stranger's the idle timer closes under it.
   * Never refused, never counted: a public path answers whatever the credentials.
   */
  function knownClientOnPublicPath(request: ScreenedRequest): void {
    if (!options.onAuthenticated || auth.mode !== 'enabled') return;
    const credentials = readCredentials(request.headers);
    if (credentials.token !== undefined && auth.verify(credentials.tenantId, credentials.token)) options.onAuthenticated(request.socket, credentials.tenantId);
  }

  function screenAfresh(request: ScreenedRequest, ip: string, countFailures: boolean): ScreenVerdict {
    const { headers } = request;
    const host = headers.host ?? '';
    const name = hostName(host).toLowerCase();
    if (!host || !isOurHost(name)) {
      return { ok: false, problem: new ProblemError(400, 'forbidden_host', 'the Host header must name this machine (127.0.0.1, localhost or [::1])') };
    }
    const url = request.url ?? '/';
    const target = absoluteFormHost(url);
    if (target !== undefined && (target === null || !isOurHost(target))) {
      return { ok: false, problem: new ProblemError(400, 'forbidden_host', 'the request target must be a path on this server, not a URL naming another host') };
    }
    const ownOrigin = `http://${host}`;
    const origin = headers.origin;
    if (origin !== undefined && origin !== ownOrigin) {
      return { ok: false, problem: new ProblemError(403, 'forbidden_origin', 'cross-origin browser requests are not allowed') };
    }
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (options.isPublic(path)) return { ok: true, tenantId: undefined };
    if (isForeignBrowserRequest(headers, ownOrigin)) {
      return { ok: false, problem: new ProblemError(403, 'forbidden_origin', 'requests made by other web sites are not allowed (Sec-Fetch-Site / Sec-Fetch-Mode)') };
    }
    if (auth.mode === 'unconfigured') {
      return { ok: false, problem: new ProblemError(404, 'auth_not_configured', AUTH_NOT_CONFIGURED_DETAIL) };
    }
    const credentials = readCredentials(headers);
    // Our own page (browser mode) opened without a token sends no credentials: that is not a
    // guess, so it does not count toward the lockout. A wrong token always counts.
    const ownPageWithoutToken = single(headers['sec-fetch-site']) === 'same-origin' && credentials.token === undefined;
    const decision = auth.authenticate(ip, credentials, { countFailure: countFailures && !ownPageWithoutToken });
    if (decision.ok) return { ok: true, tenantId: decision.tenantId };
    if (decision.reason === 'blocked') {
      return {
        ok: false,
        problem: new ProblemError(401, 'auth_blocked', `too many failed authentication attempts from this address; retry in ${decision.retryAfterSeconds} s`, undefined, {
          'retry-after': String(decision.retryAfterSeconds),
        }),
      };
    }
    // The authenticator says what is wrong with what was sent (no scheme, another scheme, no token…).
    return { ok: false, problem: new ProblemError(401, 'unauthorized', decision.message), authFailure: decision.reason };
  }
}

export type RequestScreen = ReturnType<typeof makeRequestScreen>;

/**
 * The onRequest hook applying the screen (the same one the fast lanes use, so they share what it
 * remembers per connection). It runs before the body is read, so an unauthenticated
 * client cannot make us parse a large body, and its socket is closed after the answer instead of
 * waiting for the body.
 */
export function makeRequestGuard(screen: RequestScreen) {
  return function guard(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    const verdict = screen(request.raw, request.ip, true);
    if (verdict.ok) {
      if (verdict.tenantId !== undefined) request.tenantId = verdict.tenantId;
      done();
      return;
    }
    if (verdict.refusedSocket) {
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (verdict.authFailure) request.log.warn({ reason: verdict.authFailure }, 'authentication failed');
    reject(reply, verdict.problem);
  };
}
