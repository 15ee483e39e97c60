import type { z } from 'zod';
import { IPC_METHODS, zodIssuesToValidation, type IpcMethod } from '../../shared';
import { clientError } from './problems';

/** Checks a request with the method's IPC schema, so both transports reject bad input the same way (422). */
export function checkRequest<M extends IpcMethod>(method: M, req: unknown): z.output<(typeof IPC_METHODS)[M]['req']> {
  const parsed = IPC_METHODS[method].req.safeParse(req);
  if (!parsed.success) {
    const errors = zodIssuesToValidation(parsed.error.issues);
    const summary = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
    throw clientError(422, 'validation_failed', `invalid ${method} request: ${summary}`, { errors });
  }
  return parsed.data as z.output<(typeof IPC_METHODS)[M]['req']>;
}

/** Validates a response with the method's schema; a mismatch is a contract bug, reported as such. */
export function checkResponse<M extends IpcMethod>(method: M, data: unknown, source: string): z.output<(typeof IPC_METHODS)[M]['res']> {
  const parsed = IPC_METHODS[method].res.safeParse(data);
  if (!parsed.success) {
    const errors = zodIssuesToValidation(parsed.error.issues);
    const summary = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
    throw clientError(502, 'upstream_error', `unexpected response from ${source}: ${summary}`, { errors });
  }
  return parsed.data as z.output<(typeof IPC_METHODS)[M]['res']>;
}
