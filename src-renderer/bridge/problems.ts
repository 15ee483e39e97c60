import { BenchdeskApiError, ProblemSchema, problemType, type Problem, type ProblemCode } from '../../shared';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** A problem raised on the client side (network down, bad response), shaped like the server's. */
export function clientProblem(status: number, code: ProblemCode, detail: string, extra?: Partial<Problem>): Problem {
  return {
    type: problemType(code),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    error: detail,
    code,
    ...extra,
  };
}

export function clientError(status: number, code: ProblemCode, detail: string, extra?: Partial<Problem>): BenchdeskApiError {
  return new BenchdeskApiError(clientProblem(status, code, detail, extra));
}

/**
 * Normalises anything a bridge call rejected with into a BenchdeskApiError. The preload rejects
 * with `{ problem }` as plain data, because contextBridge keeps only the message of an Error.
 */
export function toBenchdeskApiError(err: unknown): BenchdeskApiError {
  if (err instanceof BenchdeskApiError) return err;
  if (typeof err === 'object' && err !== null && 'problem' in err) {
    const parsed = ProblemSchema.safeParse((err as { problem: unknown }).problem);
    if (parsed.success) return new BenchdeskApiError(parsed.data);
  }
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown error';
  return clientError(500, 'internal_error', message || 'unknown error');
}
