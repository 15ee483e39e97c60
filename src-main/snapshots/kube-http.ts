import { stat } from 'node:fs/promises';
import type * as KubeClientNode from '@kubernetes/client-node';

/**
 * Raw GETs against the cluster of one kubeconfig, through @kubernetes/client-node: its KubeConfig
 * reads the file and applies the credentials (token, client certificate, exec plugin) and TLS
 * settings to each request, and its fetch library sends it. The recorder wants the API server's
 * JSON exactly as it came (the typed models would drop fields they do not know and turn
 * timestamps into Dates), so the body is parsed here instead of by a typed API class.
 */

export type KubeHttpFailure = 'kubeconfig' | 'unreachable' | 'unauthorized' | 'forbidden' | 'not_found' | 'status' | 'timeout';

export class KubeHttpError extends Error {
  override name = 'KubeHttpError';
  constructor(
    readonly kind: KubeHttpFailure,
    message: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface KubeHttp {
  /** The API server URL of the current context (without credentials). */
  readonly server: string;
  /** The current context's namespace, when it names one. */
  readonly namespace: string | null;
  getJson(path: string, query: Record<string, string | number | boolean | undefined>, signal: AbortSignal): Promise<unknown>;
  getText(path: string, query: Record<string, string | number | boolean | undefined>, signal: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

type KubeModule = typeof KubeClientNode;
let kubeModule: Promise<KubeModule> | undefined;
/** Loaded on first use (tens of MB): a server that never records should not pay for it at start. */
function loadKubeModule(): Promise<KubeModule> {
  kubeModule ??= import('@kubernetes/client-node');
  return kubeModule;
}

function withoutCredentials(server: string): string {
  try {
    const url = new URL(server);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return server;
  }
}

function statusMessage(text: string): string | null {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    return typeof body.message === 'string' ? body.message : null;
  } catch {
    return text.trim().slice(0, 300) || null;
  }
}

function networkCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$|^UND_ERR|^ERR_TLS|CERT|SELF_SIGNED/.test(code)) return code;
    current = current.cause;
  }
  return null;
}

async function loadKubeconfig(k8s: KubeModule, file: string): Promise<KubeClientNode.KubeConfig> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new KubeHttpError('kubeconfig', `the kubeconfig path is a directory, not a file: ${file}`);
  } catch (err) {
    if (err instanceof KubeHttpError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new KubeHttpError('kubeconfig', `kubeconfig not found: ${file}`);
    if (code === 'EACCES' || code === 'EPERM') throw new KubeHttpError('kubeconfig', `kubeconfig is not readable (permission denied): ${file}`);
    throw new KubeHttpError('kubeconfig', `cannot read the kubeconfig ${file} (${code ?? 'error'})`);
  }
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (err) {
    const e = err as Error & { mark?: { line?: number } };
    // A YAML error quotes the offending text, which may be a token: name the line only.
    if (e.name === 'YAMLException') throw new KubeHttpError('kubeconfig', `the kubeconfig ${file} is not valid YAML${typeof e.mark?.line === 'number' ? ` (line ${e.mark.line + 1})` : ''}`);
    throw new KubeHttpError('kubeconfig', `the kubeconfig ${file} is not valid: ${(e.message ?? '').split('\n')[0]?.slice(0, 200)}`);
  }
  if (!kc.getCurrentCluster()?.server) throw new KubeHttpError('kubeconfig', `the kubeconfig ${file} has no current context pointing at a cluster (set current-context)`);
  return kc;
}

export async function openKubeHttp(kubeconfigPath: string, options: { requestTimeoutMs?: number } = {}): Promise<KubeHttp> {
  const k8s = await loadKubeModule();
  const kc = await loadKubeconfig(k8s, kubeconfigPath);
  const server = withoutCredentials(kc.getCurrentCluster()?.server ?? '');
  const base = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  const library = new k8s.IsomorphicFetchHttpLibrary();
  const requestTimeoutMs = options.requestTimeoutMs ?? 20_000;
  // client-node builds a new connection pool per request for TLS clusters: keep the first one for all.
  let dispatcher: ReturnType<KubeClientNode.RequestContext['getDispatcher']>;

  async function get(path: string, query: Record<string, string | number | boolean | undefined>, accept: string, signal: AbortSignal): Promise<string> {
    const ctx = new k8s.RequestContext(`${base}${path}`, k8s.HttpMethod.GET);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) ctx.setQueryParam(name, String(value));
    try {
      await kc.applySecurityAuthentication(ctx);
    } catch (err) {
      throw new KubeHttpError('kubeconfig', `the kubeconfig's credentials for ${server} could not be used: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, null, { cause: err });
    }
    ctx.setHeaderParam('Accept', accept);
    const own = ctx.getDispatcher();
    if (own !== undefined) {
      dispatcher ??= own;
      if (own !== dispatcher && dispatcher !== undefined) ctx.setDispatcher(dispatcher);
    }
    const timeout = AbortSignal.timeout(requestTimeoutMs);
    ctx.setSignal(AbortSignal.any([signal, timeout]));
    let status: number;
    let text: string;
    try {
      const response = await library.send(ctx).toPromise();
      status = response.httpStatusCode;
      text = await response.body.text();
    } catch (err) {
      if (signal.aborted) throw new KubeHttpError('timeout', `the recording was stopped before ${server} answered GET ${path}`, null, { cause: err });
      if (timeout.aborted) throw new KubeHttpError('timeout', `${server} did not answer GET ${path} within ${requestTimeoutMs / 1000} s`, null, { cause: err });
      const code = networkCode(err);
      throw new KubeHttpError('unreachable', `cannot reach the Kubernetes API at ${server}${code ? ` (${code})` : ''}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, null, { cause: err });
    }
    if (status >= 200 && status < 300) return text;
    const detail = statusMessage(text);
    const suffix = detail ? `: ${detail}` : '';
    if (status === 401) throw new KubeHttpError('unauthorized', `the Kubernetes API at ${server} rejected the kubeconfig's credentials (401 Unauthorized)`, 401);
    if (status === 403) throw new KubeHttpError('forbidden', `the kubeconfig may not read ${path} on ${server} (403 Forbidden${suffix})`, 403);
    if (status === 404) throw new KubeHttpError('not_found', `${server} does not serve ${path} (404${suffix})`, 404);
    throw new KubeHttpError('status', `the Kubernetes API at ${server} answered ${status} to GET ${path}${suffix}`, status);
  }

  const contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  return {
    server,
    namespace: typeof contextNamespace === 'string' && contextNamespace !== '' ? contextNamespace : null,
    async getJson(path, query, signal) {
      const text = await get(path, query, 'application/json', signal);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new KubeHttpError('status', `the Kubernetes API at ${server} answered GET ${path} with something that is not JSON`);
      }
    },
    getText: (path, query, signal) => get(path, query, 'text/plain, */*', signal),
    async close() {
      const d = dispatcher as { close?: () => Promise<void> } | undefined;
      await d?.close?.().catch(() => undefined);
      dispatcher = undefined;
    },
  };
}
