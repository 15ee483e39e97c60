import { stat } from 'node:fs/promises';
import type * as KubeClientNode from '@kubernetes/client-node';
import type { ConfigurationOptions, HttpLibrary, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { z } from 'zod';
import { KubeDeploymentSchema, KubeEventSchema, KubeListSchema, KubeNamespaceSchema, KubeNodeSchema, KubePodSchema, type KubeDeployment, type KubeEvent, type KubeNamespace, type KubeNode, type KubePod } from './kube-wire';
import { AgentError } from '../errors';
import { objectPager, type ObjectKind } from './kube-objects';
import { toKubeRequestError } from './kube-errors';

/**
 * Read-only access to the cluster of one kubeconfig, limited to what the built-in tools read.
 * Every call is abortable and time-limited, lists are paginated and capped, every object is
 * validated (objects that fail are skipped), and failures become KubeRequestError sentences.
 */

export interface KubeReader {
  /** The API server URL, for messages. */
  readonly server: string;
  listNamespaces(signal?: AbortSignal): Promise<KubeNamespace[]>;
  /** All namespaces when `namespace` is undefined. */
  listPods(namespace: string | undefined, signal?: AbortSignal): Promise<KubePod[]>;
  readPodLog(
    args: { namespace: string; pod: string; container?: string; tailLines: number; previous: boolean; limitBytes: number },
    signal?: AbortSignal,
  ): Promise<string>;
  listWarningEvents(namespace: string | undefined, signal?: AbortSignal): Promise<KubeEvent[]>;
  listDeployments(namespace: string | undefined, signal?: AbortSignal): Promise<KubeDeployment[]>;
  listNodes(signal?: AbortSignal): Promise<KubeNode[]>;
  /** Objects of one of the other kinds (get_resources), as plain records; all namespaces when `namespace` is undefined. */
  listObjects(kind: ObjectKind, namespace: string | undefined, signal?: AbortSignal): Promise<Record<string, unknown>[]>;
  /** Closes the reader's connections (the agent's run is over). */
  close(): Promise<void>;
}

export type KubeReaderOptions = {
  /** Per API request. */
  requestTimeoutMs?: number;
  /** Items per list page and the most items read from one list. */
  pageSize?: number;
  maxItems?: number;
};

type KubeModule = typeof KubeClientNode;
let kubeModule: Promise<KubeModule> | undefined;
/**
 * Loaded on first use: importing @kubernetes/client-node costs ~25 MB of heap and ~80 MB of RSS,
 * which a server that never runs the built-in agent should not pay at start.
 */
function loadKubeModule(): Promise<KubeModule> {
  kubeModule ??= import('@kubernetes/client-node');
  return kubeModule;
}

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * One connection pool for all of a reader's requests. For a TLS cluster (or any with TLS
 * settings), client-node builds a new undici Agent for every request, so each API call of an
 * agent's run opened a new connection and TLS handshake, and left the old one open until its
 * keep-alive timeout. The settings come from the one kubeconfig, so the first request's
 * dispatcher serves them all; the later ones, never used, hold no connection.
 */
function sharedDispatcher(): { adopt(request: RequestContext): void; close(): Promise<void> } {
  let shared: Dispatcher | undefined;
  return {
    adopt(request) {
      const own = request.getDispatcher();
      if (own === undefined) return;
      shared ??= own;
      if (own !== shared) request.setDispatcher(shared);
    },
    async close() {
      await shared?.close().catch(() => undefined);
      shared = undefined;
    },
  };
}

/** Per-call options that put our AbortSignal (client-node has no signal parameter) and the shared pool on the request. */
function withSignal(fetchLibrary: HttpLibrary, pool: ReturnType<typeof sharedDispatcher>, signal: AbortSignal): ConfigurationOptions {
  const httpApi: HttpLibrary = {
    send(request) {
      request.setSignal(signal);
      pool.adopt(request);
      return fetchLibrary.send(request);
    },
  };
  return { httpApi };
}

type ListPage = { items?: unknown[]; metadata?: { _continue?: string } };
/** client-node answers model class instances (Date fields, `_from` for `from`): read back as plain JSON records. */
const ObjectRecordSchema = z
  .custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
  .transform((v) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>);

function where(namespace: string | undefined): string {
  return namespace ? `in namespace ${namespace}` : 'in all namespaces';
}

async function readKubeconfig(path: string, k8s: KubeModule): Promise<KubeConfig> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new AgentError('kubeconfig', `kubeconfig path is a directory, not a file: ${path}`);
  } catch (err) {
    if (err instanceof AgentError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new AgentError('kubeconfig', `kubeconfig not found: ${path}`);
    if (code === 'EACCES' || code === 'EPERM') throw new AgentError('kubeconfig', `kubeconfig is not readable (permission denied): ${path}`);
    throw new AgentError('kubeconfig', `cannot access kubeconfig ${path} (${code ?? 'error'})`);
  }

  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { mark?: { line?: number } };
    if (e.code === 'EACCES' || e.code === 'EPERM') throw new AgentError('kubeconfig', `kubeconfig is not readable (permission denied): ${path}`);
    // YAML errors quote the offending text, which may be a token: report the line only.
    if (e.name === 'YAMLException') {
      const line = typeof e.mark?.line === 'number' ? ` (line ${e.mark.line + 1})` : '';
      throw new AgentError('kubeconfig', `kubeconfig ${path} is not valid YAML${line}`);
    }
    throw new AgentError('kubeconfig', `kubeconfig ${path} is not a valid kubeconfig: ${(e.message ?? '').split('\n')[0]?.slice(0, 200)}`);
  }
  if (!kc.getCurrentCluster()) {
    throw new AgentError('kubeconfig', `kubeconfig ${path} has no current context pointing at a cluster (set current-context)`);
  }
  return kc;
}

export async function loadKubeReader(kubeconfigPath: string, options: KubeReaderOptions = {}): Promise<KubeReader> {
  const k8s = await loadKubeModule();
  const kc = await readKubeconfig(kubeconfigPath, k8s);
  const server = kc.getCurrentCluster()?.server ?? '(unknown server)';
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const objects = objectPager(k8s, kc);
  const fetchLibrary = new k8s.IsomorphicFetchHttpLibrary();
  const pool = sharedDispatcher();
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const pageSize = options.pageSize ?? 500;
  const maxItems = options.maxItems ?? 5000;

  /** Runs one request with our signal plus a per-request timeout, mapping failures to sentences. */
  async function request<T>(what: string, signal: AbortSignal | undefined, fn: (opts: ConfigurationOptions) => Promise<T>): Promise<T> {
    const timeout = AbortSignal.timeout(requestTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await fn(withSignal(fetchLibrary, pool, combined));
    } catch (err) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : err;
      if (timeout.aborted) throw toKubeRequestError(new Error(`no answer within ${requestTimeoutMs / 1000} s`), what, server);
      throw toKubeRequestError(err, what, server);
    }
  }

  async function list<T>(
    what: string,
    schema: z.ZodType<T>,
    signal: AbortSignal | undefined,
    fetchPage: (cont: string | undefined, opts: ConfigurationOptions) => Promise<ListPage>,
  ): Promise<T[]> {
    const out: T[] = [];
    let cont: string | undefined;
    do {
      const page = await request(what, signal, (opts) => fetchPage(cont, opts));
      const envelope = KubeListSchema.safeParse({ items: page.items ?? [], metadata: { continue: page.metadata?._continue } });
      if (!envelope.success) throw toKubeRequestError(new Error('unexpected list response'), what, server);
      for (const item of envelope.data.items) {
        const parsed = schema.safeParse(item);
        if (parsed.success) out.push(parsed.data);
        if (out.length >= maxItems) return out;
      }
      cont = envelope.data.metadata?.continue ?? undefined;
    } while (cont);
    return out;
  }

  return {
    server,
    listNamespaces: (signal) =>
      list('list namespaces', KubeNamespaceSchema, signal, (cont, opts) => core.listNamespace({ limit: pageSize, _continue: cont }, opts)),

    listPods: (namespace, signal) =>
      list(`list pods ${where(namespace)}`, KubePodSchema, signal, (cont, opts) =>
        namespace
          ? core.listNamespacedPod({ namespace, limit: pageSize, _continue: cont }, opts)
          : core.listPodForAllNamespaces({ limit: pageSize, _continue: cont }, opts),
      ),

    readPodLog: (args, signal) =>
      request(`read the logs of pod ${args.pod} in namespace ${args.namespace}`, signal, (opts) =>
        core.readNamespacedPodLog(
          {
            namespace: args.namespace,
            name: args.pod,
            container: args.container,
            tailLines: args.tailLines,
            previous: args.previous,
            limitBytes: args.limitBytes,
          },
          opts,
        ),
      ),

    listWarningEvents: (namespace, signal) =>
      list(`list events ${where(namespace)}`, KubeEventSchema, signal, (cont, opts) =>
        namespace
          ? core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning', limit: pageSize, _continue: cont }, opts)
          : core.listEventForAllNamespaces({ fieldSelector: 'type=Warning', limit: pageSize, _continue: cont }, opts),
      ),

    listDeployments: (namespace, signal) =>
      list(`list deployments ${where(namespace)}`, KubeDeploymentSchema, signal, (cont, opts) =>
        namespace
          ? apps.listNamespacedDeployment({ namespace, limit: pageSize, _continue: cont }, opts)
          : apps.listDeploymentForAllNamespaces({ limit: pageSize, _continue: cont }, opts),
      ),

    listNodes: (signal) =>
      list('list nodes', KubeNodeSchema, signal, (cont, opts) => core.listNode({ limit: pageSize, _continue: cont }, opts)),

    listObjects: (kind, namespace, signal) =>
      list(`list ${kind} ${where(namespace)}`, ObjectRecordSchema, signal, (cont, opts) => objects(kind, namespace, pageSize, cont, opts)),

    close: () => pool.close(),
  };
}
