import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { sendProblem } from './problem-reply';

/**
 * The routes the server has, as fastify registers them, to answer a path with no route for the
 * method asked: 405 with `Allow` when the path has routes, else 404.
 */

type RouteEntry = { method: string; pattern: RegExp; fixed: boolean };

function patternOf(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}$`);
}

export type RouteTable = {
  /** Records a route (fastify's onRoute hook). */
  add(method: string | readonly string[], url: string): void;
  /**
   * The methods a path answers, for every 405 (and its Allow) whatever the method asked: a path
   * that names a fixed route is that route's (`/v1/jobs/benchmark` is a submit path, not a job id).
   */
  allowedMethods(path: string): string[];
  /** The 405 (with Allow) or 404 of a request no route takes. */
  answerUnknown(request: FastifyRequest, reply: FastifyReply): FastifyReply;
};

export function createRouteTable(): RouteTable {
  const routes: RouteEntry[] = [];
  const allowedMethods = (path: string): string[] => {
    const matching = routes.filter((r) => r.pattern.test(path));
    const fixed = matching.filter((r) => r.fixed);
    return [...new Set((fixed.length > 0 ? fixed : matching).map((r) => r.method))].sort();
  };
  return {
    add(method, url) {
      const methods = Array.isArray(method) ? method : [method];
      for (const m of methods) routes.push({ method: m.toUpperCase(), pattern: patternOf(url), fixed: !/[:*]/.test(url) });
    },
    allowedMethods,
    answerUnknown(request, reply) {
      const path = request.url.split('?')[0] ?? '';
      const allowed = allowedMethods(path);
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '));
        return sendProblem(reply, new ProblemError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`));
      }
      return sendProblem(reply, new ProblemError(404, 'not_found', `unknown path: ${path.slice(0, 200)}`));
    },
  };
}
