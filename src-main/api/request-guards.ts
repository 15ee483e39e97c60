import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { isLoopbackHost } from '../app/config';
import { readCredentials, type Authenticator } from './auth';
import { refusedSockets } from './http-limits';
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
function isForeignBrowserRequest(request: FastifyRequest, ownOrigin: string): boolean {
  const site = single(request.headers['sec-fetch-site'])?.toLowerCase();
  const mode = single(request.headers['sec-fetch-mode'])?.toLowerCase();
  const origin = single(request.headers.origin);
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

/**
 * onRequest guard, in order: one loopback Host (DNS-rebinding) and no absolute-form URI naming
 * another host, no cross-origin or cross-site browser requests, then authentication (or the "not
 * configured" 404). Runs before the body is read, so an unauthenticated client cannot make us
 * parse a large body, and its socket is closed after the answer instead of waiting for the body.
 */
export function makeRequestGuard(options: GuardOptions) {
  const allowedHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  const isOurHost = (name: string) => isLoopbackHost(name) || allowedHosts.has(name);
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (refusedSockets.has(request.raw.socket)) {
      // Over the per-IP cap: the 503 is already written and the socket is closing.
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (hostHeaderCount(request.raw.rawHeaders) > 1) {
      return reject(reply, new ProblemError(400, 'bad_request', 'send exactly one Host header'));
    }
    const host = request.headers.host ?? '';
    const name = hostName(host).toLowerCase();
    if (!host || !isOurHost(name)) {
      return reject(reply, new ProblemError(400, 'forbidden_host', 'the Host header must name this machine (127.0.0.1, localhost or [::1])'));
    }
    const target = absoluteFormHost(request.raw.url ?? '/');
    if (target !== undefined && (target === null || !isOurHost(target))) {
      return reject(reply, new ProblemError(400, 'forbidden_host', 'the request target must be a path on this server, not a URL naming another host'));
    }
    const ownOrigin = `http://${host}`;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) {
      return reject(reply, new ProblemError(403, 'forbidden_origin', 'cross-origin browser requests are not allowed'));
    }
    const path = request.url.split('?')[0] ?? '';
    if (options.isPublic(path)) return;
    if (isForeignBrowserRequest(request, ownOrigin)) {
      return reject(reply, new ProblemError(403, 'forbidden_origin', 'requests made by other web sites are not allowed (Sec-Fetch-Site / Sec-Fetch-Mode)'));
    }
    const { auth } = options;
    if (auth.mode === 'unconfigured') {
      return reject(reply, new ProblemError(404, 'auth_not_configured', AUTH_NOT_CONFIGURED_DETAIL));
    }
    const credentials = readCredentials(request.headers);
    // Our own page (browser mode) opened without a token sends no credentials: that is not a
    // guess, so it does not count toward the lockout. A wrong token always counts.
    const ownPageWithoutToken = single(request.headers['sec-fetch-site']) === 'same-origin' && credentials.token === undefined;
    const decision = auth.authenticate(request.ip, credentials, { countFailure: !ownPageWithoutToken });
    if (decision.ok) {
      request.tenantId = decision.tenantId;
      return;
    }
    if (decision.reason === 'blocked') {
      return reject(
        reply,
        new ProblemError(401, 'auth_blocked', `too many failed authentication attempts from this address; retry in ${decision.retryAfterSeconds} s`, undefined, {
          'retry-after': String(decision.retryAfterSeconds),
        }),
      );
    }
    request.log.warn({ reason: decision.reason }, 'authentication failed');
    return reject(
      reply,
      // The authenticator says what is wrong with what was sent (no scheme, another scheme, no token…).
      new ProblemError(401, 'unauthorized', decision.message),
    );
  };
}
