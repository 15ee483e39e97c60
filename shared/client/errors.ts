import { ProblemSchema, problemType, type Problem, type ProblemCode } from '../problems';

/** Every failure any transport reports: the server's problem+json body, or one shaped like it. */
export class BenchdeskApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'BenchdeskApiError';
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }
}

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

/** A problem raised on the client side (network down, a malformed answer), shaped like the server's. */
export function clientProblem(status: number, code: ProblemCode, detail: string, extra?: Partial<Problem>): Problem {
  return { type: problemType(code), title: TITLES[status] ?? 'Error', status, detail, error: detail, code, ...extra };
}

export function clientError(status: number, code: ProblemCode, detail: string, extra?: Partial<Problem>): BenchdeskApiError {
  return new BenchdeskApiError(clientProblem(status, code, detail, extra));
}

/**
 * Normalises anything a transport rejected with into a BenchdeskApiError. Electron's contextBridge
 * keeps only an Error's message, so the preload rejects with `{ problem }` as plain data.
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

export function isBenchdeskApiError(err: unknown): err is BenchdeskApiError {
  return err instanceof BenchdeskApiError;
}
