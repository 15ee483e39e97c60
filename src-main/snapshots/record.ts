import { SNAPSHOT_FORMAT, SNAPSHOT_RESOURCES, DEFAULT_LOG_TAIL_LINES, type SnapshotResource } from '../../shared/snapshots';
import { canonicalSnapshotOwned, type CanonicalSnapshot } from './document';
import { KubeHttpError, openKubeHttp, type KubeHttp } from './kube-http';
import { DEFAULT_LOG_BOUNDS, LogBudget, logTargets, readTargetLogs, type LogBounds, type RecordedLog } from './record-logs';
import { listPath, resourceInfo } from './resources';
import { sanitizeObject } from './sanitize';

/**
 * Records a cluster (design §11): the resources of SNAPSHOT_RESOURCES (never Secrets), each
 * object sanitised as soon as it is read, then the newest lines of each container's current and
 * previous log, within the log bounds of record-logs.ts. The whole recording is bounded (60 s by
 * default): the objects must be read within it, and logs are read with the time that is left,
 * the rest named in `warnings`. A resource the kubeconfig may not list (403) or the server does
 * not serve (404) is a warning, not a failure; a namespace it does not have is the caller's error.
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
  /** Bytes kept of each log and of all logs (default DEFAULT_LOG_BOUNDS). */
  logBounds?: LogBounds;
  signal?: AbortSignal;
  onProgress?: (progress: RecordProgress) => void;
  now?: () => Date;
};

export const RECORD_DEADLINE_MS = 60_000;
const PAGE_SIZE = 500;

type Json = Record<string, unknown>;

/** A namespace the cluster does not have: the request's mistake (a 4xx), not the cluster's failure. */
export class UnknownNamespaceError extends Error {
  override name = 'UnknownNamespaceError';
  constructor(
    readonly namespace: string,
    server: string,
  ) {
    super(`the cluster at ${server} has no namespace ${namespace}`);
  }
}

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

/** One recording's state: the connection, the time bound, what was read and what went wrong. */
type Recording = {
  http: KubeHttp;
  options: RecordOptions;
  signal: AbortSignal;
  deadline: AbortSignal;
  deadlineMs: number;
  started: number;
  warnings: string[];
  objects: Record<SnapshotResource, Json[]>;
  /** Rethrows `err`, as a time-bound failure when the deadline caused it. */
  overTime(err: unknown): never;
};

async function readNamespaces(rec: Recording, chosen: string[] | null): Promise<void> {
  const { http, signal } = rec;
  if (chosen) {
    for (const ns of chosen) {
      try {
        rec.objects.namespaces.push((await http.getJson(`/api/v1/namespaces/${encodeURIComponent(ns)}`, {}, signal)) as Json);
      } catch (err) {
        if (err instanceof KubeHttpError && err.kind === 'not_found') throw new UnknownNamespaceError(ns, http.server);
        // Without the right to read the namespace object, the snapshot still names it.
        if (err instanceof KubeHttpError && err.kind === 'forbidden') rec.objects.namespaces.push({ metadata: { name: ns }, status: { phase: 'Active' } });
        else rec.overTime(err);
      }
    }
  } else {
    try {
      rec.objects.namespaces = await listAll(http, '/api/v1/namespaces', signal);
    } catch (err) {
      if (err instanceof KubeHttpError && err.kind === 'forbidden') throw new KubeHttpError('forbidden', `${err.message}; name the namespaces to record instead`, 403);
      rec.overTime(err);
    }
  }
  for (const ns of rec.objects.namespaces) sanitizeObject('namespaces', ns);
  rec.options.onProgress?.({ phase: 'list', resource: 'namespaces', count: rec.objects.namespaces.length });
}

async function readResources(rec: Recording, chosen: string[] | null): Promise<void> {
  const work = SNAPSHOT_RESOURCES.filter((r) => r !== 'namespaces');
  await pool(work, 4, () => rec.signal.aborted, async (resource) => {
    const info = resourceInfo(resource);
    const paths = info.namespaced && chosen ? chosen.map((ns) => listPath(info, ns)) : [listPath(info)];
    const found: Json[] = [];
    for (const path of paths) {
      try {
        found.push(...(await listAll(rec.http, path, rec.signal)));
      } catch (err) {
        if (err instanceof KubeHttpError && (err.kind === 'forbidden' || err.kind === 'not_found')) {
          rec.warnings.push(`${resource} not recorded: ${err.message}`);
          continue;
        }
        rec.overTime(err);
      }
    }
    for (const object of found) sanitizeObject(resource, object);
    rec.objects[resource] = found;
    rec.options.onProgress?.({ phase: 'list', resource, count: found.length });
  });
  if (rec.deadline.aborted) rec.overTime(new Error('deadline'));
}

async function readLogs(rec: Recording, tail: number): Promise<RecordedLog[]> {
  const { options, signal } = rec;
  const logs: RecordedLog[] = [];
  const targets = logTargets(rec.objects.pods);
  const budget = new LogBudget(options.logBounds ?? DEFAULT_LOG_BOUNDS, targets.reduce((n, t) => n + (t.current ? 1 : 0) + (t.previous ? 1 : 0), 0));
  let done = 0;
  let failed = 0;
  options.onProgress?.({ phase: 'logs', done, total: targets.length });
  // Logs use the time left, less a margin for storing the snapshot.
  const stopLogs = () => signal.aborted || rec.deadlineMs - (Date.now() - rec.started) < 1_000;
  await pool(targets, options.logConcurrency ?? 8, stopLogs, async (target) => {
    const read = await readTargetLogs(rec.http, target, tail, budget, signal, () => failed++);
    if (read) logs.push(read);
    done++;
    options.onProgress?.({ phase: 'logs', done, total: targets.length });
  }).catch((err: unknown) => {
    if (!signal.aborted || options.signal?.aborted) throw err;
  });
  if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('recording cancelled');
  if (done < targets.length) rec.warnings.push(`logs of ${targets.length - done} of ${targets.length} containers not recorded: the ${Math.round(rec.deadlineMs / 1000)} s time bound was reached`);
  if (failed > 0) rec.warnings.push(`${failed} log read(s) failed (the container had no log to give, or the kubeconfig may not read pods/log)`);
  rec.warnings.push(...budget.warnings());
  return logs;
}

async function kubernetesVersionOf(rec: Recording): Promise<string | null> {
  try {
    const version = (await rec.http.getJson('/version', {}, rec.signal)) as { gitVersion?: unknown } | null;
    return typeof version?.gitVersion === 'string' ? version.gitVersion : null;
  } catch (err) {
    if (!(err instanceof KubeHttpError) || (err.kind !== 'forbidden' && err.kind !== 'not_found')) rec.overTime(err);
    return null;
  }
}

export async function recordCluster(options: RecordOptions): Promise<CanonicalSnapshot> {
  const started = Date.now();
  const deadlineMs = options.deadlineMs ?? RECORD_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const http = await openKubeHttp(options.kubeconfig, { requestTimeoutMs: Math.min(options.requestTimeoutMs ?? 20_000, deadlineMs) });
  const rec: Recording = {
    http,
    options,
    signal,
    deadline,
    deadlineMs,
    started,
    warnings: [],
    objects: Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, [] as Json[]])) as Record<SnapshotResource, Json[]>,
    overTime(err) {
      if (options.signal?.aborted) throw err;
      if (deadline.aborted) throw new KubeHttpError('timeout', `the cluster at ${http.server} could not be recorded within ${Math.round(deadlineMs / 1000)} s (its objects were not all read)`, null, { cause: err });
      throw err;
    },
  };
  try {
    options.onProgress?.({ phase: 'connect', server: http.server });
    const kubernetesVersion = await kubernetesVersionOf(rec);
    const chosen = options.namespaces && options.namespaces.length > 0 ? [...new Set(options.namespaces)] : null;
    await readNamespaces(rec, chosen);
    await readResources(rec, chosen);
    const tail = options.logTailLines ?? DEFAULT_LOG_TAIL_LINES;
    const logs = tail > 0 ? await readLogs(rec, tail) : [];
    // The moment the last object or log line was read: nothing in the snapshot is stamped after
    // it, so the snapshot lint's "after the recording" checks hold for a real recording too.
    const recordedAt = (options.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    // The context's namespace when it was recorded, when the snapshot holds it: a replay's kubeconfig starts there.
    const contextNamespace = http.namespace !== null && rec.objects.namespaces.some((ns) => (ns.metadata as Json | undefined)?.name === http.namespace) ? http.namespace : null;
    const document = await canonicalSnapshotOwned({
      format: SNAPSHOT_FORMAT,
      name: options.name,
      ...(options.description ? { description: options.description } : {}),
      recorded_at: recordedAt,
      source: { server: http.server, kubernetes_version: kubernetesVersion, ...(contextNamespace ? { namespace: contextNamespace } : {}) },
      log_tail_lines: tail,
      objects: rec.objects,
      logs,
      warnings: rec.warnings,
    });
    options.onProgress?.({ phase: 'done', elapsed_ms: Date.now() - started });
    return document;
  } finally {
    await http.close();
  }
}
