import {
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  type BenchdeskClient,
  type CallOptions,
} from '../../shared';
import { BenchdeskApiError } from '../../shared/client';
import { ProblemError } from '../app/problem-error';
import { problemOf } from './problem-of';
import type { OperationHandlers } from './types';

type Log = (message: string, err: unknown) => void;

/**
 * The BenchdeskClient over the handlers, in this process, as one tenant: the CLI's local mode and
 * the Electron IPC path. Failures become BenchdeskApiError with the same problem body HTTP sends.
 */
export function createInProcessClient(handlers: OperationHandlers, tenantId: string, log?: Log): BenchdeskClient {
  const toApiError = (err: unknown, name: string): BenchdeskApiError => {
    if (err instanceof BenchdeskApiError) return err;
    if (!(err instanceof ProblemError)) log?.(`${name} failed`, err);
    return new BenchdeskApiError(problemOf(err));
  };
  const client: Record<string, unknown> = {};
  for (const name of UNARY_OPERATION_NAMES) {
    const handler = handlers[name] as (ctx: { tenantId: string; signal?: AbortSignal }, input: unknown) => Promise<unknown>;
    client[name] = async (input: unknown, options?: CallOptions) => {
      try {
        return await handler({ tenantId, signal: options?.signal }, input);
      } catch (err) {
        throw toApiError(err, name);
      }
    };
  }
  for (const name of STREAM_OPERATION_NAMES) {
    const handler = handlers[name] as (ctx: { tenantId: string; signal?: AbortSignal }, input: unknown) => Promise<AsyncIterable<unknown>>;
    client[name] = (input: unknown, options?: CallOptions): AsyncIterable<unknown> => ({
      async *[Symbol.asyncIterator]() {
        try {
          yield* await handler({ tenantId, signal: options?.signal }, input);
        } catch (err) {
          throw toApiError(err, name);
        }
      },
    });
  }
  return client as BenchdeskClient;
}
