import type { z } from 'zod';
import { OPERATIONS, type OperationName } from '../../shared';
import { ProblemError } from '../app/problem-error';

/** Checks an operation's input envelope; a failure is the same 422 problem on every transport. */
export function parseInput<O extends OperationName>(name: O, input: unknown): z.output<(typeof OPERATIONS)[O]['input']> {
  const parsed = OPERATIONS[name].input.safeParse(input ?? {});
  if (!parsed.success) throw ProblemError.validation(parsed.error.issues, inputLabel(name));
  return parsed.data as z.output<(typeof OPERATIONS)[O]['input']>;
}

function inputLabel(name: OperationName): string {
  const op = OPERATIONS[name];
  return op.method === 'GET' ? 'query' : 'request';
}
