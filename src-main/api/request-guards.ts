import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { isLoopbackHost } from '../app/config';
import { readCredentials, type Authenticator } from './auth';
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

/**
 * onRequest guard, in order: loopback Host (DNS-rebinding), no cross-origin browser requests,
 * then authentication (or the "not configured" 404). Runs before the body is read, so an
 * unauthenticated client cannot make us parse a large body.
 */
export function makeRequestGuard(options: GuardOptions) {
  const allowedHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const host = request.headers.host ?? '';
    const name = hostName(host).toLowerCase();
    if (!host || !(isLoopbackHost(name) || allowedHosts.has(name))) {
      sendProblem(reply, new ProblemError(400, 'forbidden_host', 'the Host header must name this machine (127.0.0.1, localhost or [::1])'));
      return reply;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) {
      sendProblem(reply, new ProblemError(403, 'forbidden_origin', 'cross-origin browser requests are not allowed'));
      return reply;
    }
    const path = request.url.split('?')[0] ?? '';
    if (options.isPublic(path)) return;
    const { auth } = options;
    if (auth.mode === 'unconfigured') {
      sendProblem(reply, new ProblemError(404, 'auth_not_configured', AUTH_NOT_CONFIGURED_DETAIL));
      return reply;
    }
    const decision = auth.authenticate(request.ip, readCredentials(request.headers));
    if (decision.ok) {
      request.tenantId = decision.tenantId;
      return;
    }
    if (decision.reason === 'blocked') {
      sendProblem(
        reply,
        new ProblemError(401, 'auth_blocked', `too many failed authentication attempts from this address; retry in ${decision.retryAfterSeconds} s`, undefined, {
          'retry-after': String(decision.retryAfterSeconds),
        }),
      );
      return reply;
    }
    request.log.warn({ reason: decision.reason }, 'authentication failed');
    sendProblem(
      reply,
      new ProblemError(401, 'unauthorized', decision.reason === 'missing'
        ? 'credentials required: send Authorization: Bearer <token> or X-API-Key (and X-Tenant-ID for a tenant other than "default")'
        : 'invalid tenant/token combination'),
    );
    return reply;
  };
}
