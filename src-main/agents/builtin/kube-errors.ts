import type { ApiException } from '@kubernetes/client-node';
import { KubeStatusSchema } from './kube-wire';
import { errorMessage } from '../errors';

/**
 * Turns a failed Kubernetes API call into one sentence a model (and a person) can act on, e.g.
 * "kubeconfig lacks permission to list pods in all namespaces (403 Forbidden: …)".
 */
export class KubeRequestError extends Error {
  override name = 'KubeRequestError';
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function statusMessage(body: unknown): string | null {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim().slice(0, 500) || null;
    }
  }
  const parsed = KubeStatusSchema.safeParse(value);
  return parsed.success ? (parsed.data.message ?? parsed.data.reason ?? null) : null;
}

/** The innermost `code` of a network error (undici nests it in `cause`). */
function networkCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$|^UND_ERR/.test(code)) return code;
    current = current.cause;
  }
  return null;
}

/**
 * client-node's ApiException, recognised by shape: the module is loaded lazily (see kube-client.ts),
 * so this file must not import it as a value.
 */
function isApiException(err: unknown): err is ApiException<unknown> {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number' && 'body' in err && 'headers' in err;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/**
 * @param what what we tried, as a verb phrase: "list pods in namespace shop".
 * @param server the API server URL, for network errors.
 */
export function toKubeRequestError(err: unknown, what: string, server: string): KubeRequestError {
  if (isApiException(err)) {
    const code = err.code;
    const detail = statusMessage(err.body);
    const suffix = detail ? `: ${detail}` : '';
    switch (code) {
      case 401:
        return new KubeRequestError(
          `the Kubernetes API rejected the kubeconfig's credentials (401 Unauthorized) while trying to ${what}; the token or certificate is invalid or expired`,
          401,
          { cause: err },
        );
      case 403:
        return new KubeRequestError(`kubeconfig lacks permission to ${what} (403 Forbidden${suffix})`, 403, { cause: err });
      case 404:
        return new KubeRequestError(`not found while trying to ${what} (404${suffix})`, 404, { cause: err });
      case 400:
        return new KubeRequestError(`the Kubernetes API refused to ${what} (400${suffix})`, 400, { cause: err });
      default:
        return new KubeRequestError(`the Kubernetes API answered HTTP ${code} while trying to ${what}${suffix}`, code, { cause: err });
    }
  }
  const net = networkCode(err);
  if (net) {
    return new KubeRequestError(`cannot reach the Kubernetes API server at ${server} to ${what} (${net})`, null, { cause: err });
  }
  return new KubeRequestError(`failed to ${what}: ${errorMessage(err).split('\n')[0]?.slice(0, 300)}`, null, { cause: err });
}
