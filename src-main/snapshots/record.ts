import { SNAPSHOT_FORMAT, SNAPSHOT_RESOURCES, DEFAULT_LOG_TAIL_LINES, type SnapshotResource } from '../../shared/snapshots';
import { canonicalSnapshot, type CanonicalSnapshot } from './document';
import { KubeHttpError, openKubeHttp, type KubeHttp } from './kube-http';
import { listPath, resourceInfo } from './resources';
import { sanitizeObject } from './sanitize';

/**
 * Records a cluster (design §11): the resources of SNAPSHOT_RESOURCES (never Secrets), each
 * object sanitised as soon as it is read, then the last N lines of each container's current and
 * previous log. The whole recording is bounded (60 s by default): the objects must be read within
 * it, and logs are read with the time that is left, the rest named in `warnings`. A resource the
 * kubeconfig may not list (403) or the server does not serve (404) is a warning, not a failure.
 */

export type RecordProgress =
  | { phase: 'connect'; server: string }
  | { phase: 'list'; resource: SnapshotResource; count: number }
  | { phase: 'logs'; done: number; total: number }
  | { phase: 'done'; elapsed_ms: number };

export type RecordOptions = {
  name: string;
  kubeconfig: string;
  namespaces?: readonly string[] | undefined;
  logTailLines?: number;
  description?: string | undefined;
  /** The whole recording (default 60 s). */
  deadlineMs?: number;
  /** Per API request (default 20 s, never past the deadline). */
  requestTimeoutMs?: number;
  /** Log reads in flight at once. */
  logConcurrency?: number;
  /** Bytes kept of each log at most (the API's limitBytes). */
  logLimitBytes?: number;
  signal?: AbortSignal;
  onProgress?: (progress: RecordProgress) => void;
  now?: () => Date;
};

export const RECORD_DEADLINE_MS = 60_000;
const PAGE_SIZE = 500;
const LOG_LIMIT_BYTES = 256 * 1024;

type Json = Record<string, unknown>;

/** Runs `fn` over items with at most `limit` in flight; stops taking new items once `stop()` says so. */
async function pool<T>(items: readonly T[], limit: number, stop: () => boolean, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function listAll(http: KubeHttp, path: string, signal: AbortSignal): Promise<Json[]> {
  const items: Json[] = [];
  let cont: string | undefined;
  do {
    const page = (await http.getJson(path, { limit: PAGE_SIZE, continue: cont }, signal)) as { items?: unknown; metadata?: { continue?: unknown } } | null;
    if (!page || !Array.isArray(page.items)) throw new KubeHttpError('status', `the Kubernetes API at ${http.server} answered GET ${path} with something that is not a list`);
    for (const item of page.items) if (item && typeof item === 'object' && !Array.isArray(item)) items.push(item as Json);
    cont = typeof page.metadata?.continue === 'string' && page.metadata.continue !== '' ? page.metadata.continue : undefined;
  } while (cont);
  return items;
}

type LogTarget = { namespace: string; pod: string; container: string; current: boolean; previous: boolean };

/** Which logs exist to read: a container that ran (or is running) has a current log; one with a last terminated state, a previous one. */
function logTargets(pods: readonly Json[]): LogTarget[] {
  const targets: LogTarget[] = [];
  for (const pod of pods) {
    const metadata = pod.metadata as Json;
    const spec = (pod.spec ?? {}) as Json;
    if (!spec.nodeName) continue;
    const status = (pod.status ?? {}) as Json;
    for (const key of ['initContainerStatuses', 'containerStatuses']) {
      const statuses = Array.isArray(status[key]) ? (status[key] as Json[]) : [];
      for (const cs of statuses) {
        const state = (cs.state ?? {}) as Json;
        const last = ((cs.lastState ?? {}) as Json).terminated;
        const previous = last !== undefined && last !== null;
        const current = state.running !== undefined || state.terminated !== undefined || previous;
        if (current || previous) targets.push({ namespace: String(metadata.namespace), pod: String(metadata.name), container: String(cs.name), current, previous });
      }
    }
  }
  return targets;
}

export async function recordCluster(options: RecordOptions): Promise<CanonicalSnapshot> {
  const started = Date.now();
  const deadlineMs = options.deadlineMs ?? RECORD_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const remaining = () => deadlineMs - (Date.now() - started);
  const http = await openKubeHttp(options.kubeconfig, { requestTimeoutMs: Math.min(options.requestTimeoutMs ?? 20_000, deadlineMs) });
  const warnings: string[] = [];
  const objects = Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, [] as Json[]])) as Record<SnapshotResource, Json[]>;
  const logs: { namespace: string; pod: string; container: string; current: string | null; previous: string | null }[] = [];
  const overTime = (err: unknown): never => {
    if (options.signal?.aborted) throw err;
    if (deadline.aborted) throw new KubeHttpError('timeout', `the cluster at ${http.server} could not be recorded within ${Math.round(deadlineMs / 1000)} s (its objects were not all read)`, null, { cause: err });
    throw err;
  };

  try {
    options.onProgress?.({ phase: 'connect', server: http.server });
    let kubernetesVersion: string | null = null;
    try {
      const version = (await http.getJson('/version', {}, signal)) as { gitVersion?: unknown } | null;
      kubernetesVersion = typeof version?.gitVersion === 'string' ? version.gitVersion : null;
    } catch (err) {
      if (!(err instanceof KubeHttpError) || (err.kind !== 'forbidden' && err.kind !== 'not_found')) overTime(err);
    }

    const chosen = options.namespaces && options.namespaces.length > 0 ? [...new Set(options.namespaces)] : null;
    if (chosen) {
      for (const ns of chosen) {
        try {
          objects.namespaces.push((await http.getJson(`/api/v1/namespaces/${encodeURIComponent(ns)}`, {}, signal)) as Json);
        } catch (err) {
          if (err instanceof KubeHttpError && err.kind === 'not_found') throw new KubeHttpError('not_found', `the cluster at ${http.server} has no namespace ${ns}`, 404);
          // Without the right to read the namespace object, the snapshot still names it.
          if (err instanceof KubeHttpError && err.kind === 'forbidden') objects.namespaces.push({ metadata: { name: ns }, status: { phase: 'Active' } });
          else overTime(err);
        }
      }
    } else {
      try {
        objects.namespaces = await listAll(http, '/api/v1/namespaces', signal);
      } catch (err) {
        if (err instanceof KubeHttpError && err.kind === 'forbidden') {
          throw new KubeHttpError('forbidden', `${err.message}; name the namespaces to record instead`, 403);
        }
        overTime(err);
      }
    }
    for (const ns of objects.namespaces) sanitizeObject('namespaces', ns);
    options.onProgress?.({ phase: 'list', resource: 'namespaces', count: objects.namespaces.length });

    const work = SNAPSHOT_RESOURCES.filter((r) => r !== 'namespaces');
    await pool(work, 4, () => signal.aborted, async (resource) => {
      const info = resourceInfo(resource);
      const paths = info.namespaced && chosen ? chosen.map((ns) => listPath(info, ns)) : [listPath(info)];
      const found: Json[] = [];
      for (const path of paths) {
        try {
          found.push(...(await listAll(http, path, signal)));
        } catch (err) {
          if (err instanceof KubeHttpError && (err.kind === 'forbidden' || err.kind === 'not_found')) {
            warnings.push(`${resource} not recorded: ${err.message}`);
            continue;
          }
          overTime(err);
        }
      }
      for (const object of found) sanitizeObject(resource, object);
      objects[resource] = found;
      options.onProgress?.({ phase: 'list', resource, count: found.length });
    });
    if (deadline.aborted) overTime(new Error('deadline'));

    const tail = options.logTailLines ?? DEFAULT_LOG_TAIL_LINES;
    if (tail > 0) {
      const targets = logTargets(objects.pods);
      let done = 0;
      let failed = 0;
      options.onProgress?.({ phase: 'logs', done, total: targets.length });
      // Logs use the time left, less a margin for writing the snapshot.
      const stopLogs = () => signal.aborted || remaining() < 1_000;
      await pool(targets, options.logConcurrency ?? 8, stopLogs, async (t) => {
        const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/log`;
        const read = async (previous: boolean): Promise<string | null> => {
          try {
            return await http.getText(path, { container: t.container, tailLines: tail, limitBytes: options.logLimitBytes ?? LOG_LIMIT_BYTES, ...(previous ? { previous: true } : {}) }, signal);
          } catch (err) {
            if (err instanceof KubeHttpError && err.kind === 'unreachable') throw err;
            failed++;
            return null;
          }
        };
        const current = t.current ? await read(false) : null;
        const previous = t.previous ? await read(true) : null;
        if (current !== null || previous !== null) logs.push({ namespace: t.namespace, pod: t.pod, container: t.container, current, previous });
        done++;
        options.onProgress?.({ phase: 'logs', done, total: targets.length });
      }).catch((err: unknown) => {
        if (!signal.aborted || options.signal?.aborted) throw err;
      });
      if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('recording cancelled');
      if (done < targets.length) warnings.push(`logs of ${targets.length - done} of ${targets.length} containers not recorded: the ${Math.round(deadlineMs / 1000)} s time bound was reached`);
      if (failed > 0) warnings.push(`${failed} log read(s) failed (the container had no log to give, or the kubeconfig may not read pods/log)`);
    }

    // The moment the last object or log line was read: nothing in the snapshot is stamped after
    // it, so the snapshot lint's "after the recording" checks hold for a real recording too.
    const recordedAt = (options.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const document = canonicalSnapshot({
      format: SNAPSHOT_FORMAT,
      name: options.name,
      ...(options.description ? { description: options.description } : {}),
      recorded_at: recordedAt,
      source: { server: http.server, kubernetes_version: kubernetesVersion },
      log_tail_lines: tail,
      objects,
      logs,
      warnings,
    });
    options.onProgress?.({ phase: 'done', elapsed_ms: Date.now() - started });
    return document;
  } finally {
    await http.close();
  }
}
