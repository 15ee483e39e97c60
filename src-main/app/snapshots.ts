import fsp from 'node:fs/promises';
import type { z } from 'zod';
import path from 'node:path';
import { APP_TENANT_ID, RecordSnapshotInputSchema, type ExportedSnapshot, type SnapshotList, type SnapshotSummary } from '../../shared';
import { resolveKubeconfigPath } from '../agents/kubeconfig-path';
import type { Logger } from '../engine/types';
import { contentHashSliced, SnapshotDocumentError, type CanonicalSnapshot } from '../snapshots/document';
import { KubeHttpError } from '../snapshots/kube-http';
import { recordCluster, UnknownNamespaceError, type RecordProgress } from '../snapshots/record';
import { SnapshotNotFoundError, SnapshotReplays, type SnapshotLease, type SnapshotLeases } from '../snapshots/replays';
import { serveLeaseHolders } from '../snapshots/serve-leases';
import { SnapshotStore, type StoredSummary } from '../snapshots/snapshot-store';
import { newRecordId } from '../store/id-files';
import { ProblemError } from './problem-error';
import { documentOf, ExportLimiter, exportWithin } from './snapshot-io';

export { MAX_EXPORTS_PER_TENANT } from './snapshot-io';
import { requireAppTenant } from './tenant-refusals';

/**
 * Recorded clusters as a resource of the install (design §11): record, list, show, export,
 * import, delete, and serving one for the life of a job.
 *
 * Snapshots are install-wide files, like the settings: every tenant may list, read, export and
 * run jobs on them, and only the app's own tenant (`default`) may record, import or delete one.
 * Recording reads a kubeconfig on the server's machine with the server's rights, so another
 * tenant could otherwise copy any cluster the owner can reach; importing and deleting change
 * what every tenant's suites run on.
 */

/** The operation table marks record, import and delete `appTenantOnly` too; the service checks again for callers in this process. */
export const SNAPSHOT_OWNER_TENANT = APP_TENANT_ID;

/** Says who uses a snapshot (the suites register one); an empty list = nobody. */
export type SnapshotUsage = (snapshotId: string) => readonly string[];

export type SnapshotService = SnapshotLeases & {
  record(tenantId: string, input: unknown, options?: { signal?: AbortSignal | undefined; onProgress?: (p: RecordProgress) => void }): Promise<SnapshotSummary>;
  list(): Promise<SnapshotList>;
  get(snapshotId: string): Promise<SnapshotSummary>;
  export(snapshotId: string): Promise<ExportedSnapshot>;
  /**
   * The export as text, written piece by piece as the stored file is read (HTTP). At most
   * MAX_EXPORTS_PER_TENANT run at once per tenant: another is a 429 with Retry-After.
   */
  exportText(tenantId: string, snapshotId: string): Promise<AsyncIterable<string>>;
  /** The stored document (for the suites: a suite export carries its snapshots). */
  document(snapshotId: string): Promise<ExportedSnapshot | undefined>;
  import(tenantId: string, document: unknown, options?: { snapshotId?: string }): Promise<SnapshotSummary>;
  delete(tenantId: string, snapshotId: string): Promise<void>;
  /**
   * Registers who uses snapshots (the suites code calls this once); a snapshot anyone names
   * cannot be deleted (409). Returns a function that removes the source.
   */
  registerUsage(source: SnapshotUsage): () => void;
  /** Who uses the snapshot now: registered sources and the jobs serving it. */
  usedBy(snapshotId: string): string[];
  close(): Promise<void>;
};

export type SnapshotServiceDeps = {
  dataDir: string;
  log: Logger;
  now?: () => Date;
  /** Overrides of the recording bound and request timeout (tests). */
  recordTuning?: { deadlineMs?: number; requestTimeoutMs?: number };
};

function recordProblem(err: unknown): ProblemError {
  // The request named a namespace the cluster does not have: its mistake, not the cluster's failure.
  if (err instanceof UnknownNamespaceError) return ProblemError.validation([{ path: 'namespaces', message: err.message }], 'request');
  if (err instanceof KubeHttpError) {
    switch (err.kind) {
      case 'kubeconfig':
        return ProblemError.validation([{ path: 'kubeconfig', message: err.message }], 'request');
      case 'unreachable':
      case 'timeout':
        return new ProblemError(502, 'upstream_unreachable', err.message);
      default:
        return new ProblemError(502, 'upstream_error', err.message);
    }
  }
  if (err instanceof SnapshotDocumentError) {
    return new ProblemError(502, 'upstream_error', `the cluster answered objects that cannot be kept in a snapshot: ${err.message}`);
  }
  throw err;
}

/** Checks a record request and records the cluster it names (a failure is the problem to answer). */
async function recordRequested(
  input: unknown,
  options: { signal?: AbortSignal | undefined; onProgress?: (p: RecordProgress) => void },
  deps: SnapshotServiceDeps,
  now: () => Date,
): Promise<{ request: z.infer<typeof RecordSnapshotInputSchema>; doc: CanonicalSnapshot }> {
  const parsed = RecordSnapshotInputSchema.safeParse(input ?? {});
  if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'request');
  const request = parsed.data;
  try {
    const doc = await recordCluster({
      name: request.name,
      // As a job's kubeconfig is: `~/` expanded, relative paths made absolute.
      kubeconfig: resolveKubeconfigPath(request.kubeconfig),
      namespaces: request.namespaces,
      logTailLines: request.log_tail_lines,
      description: request.description,
      signal: options.signal,
      onProgress: options.onProgress,
      now,
      ...deps.recordTuning,
    });
    return { request, doc };
  } catch (err) {
    throw recordProblem(err);
  }
}

/** Who uses a snapshot: registered sources (suites), the jobs serving it, and `benchdesk snapshot serve` in another process. */
function usersOf(snapshotId: string, usage: ReadonlySet<SnapshotUsage>, replays: SnapshotReplays, deps: SnapshotServiceDeps): string[] {
  const users = new Set<string>();
  for (const source of usage) {
    try {
      for (const user of source(snapshotId)) users.add(user);
    } catch (err) {
      deps.log.warn('a snapshot usage source failed', { err: String(err) });
    }
  }
  for (const holder of replays.holders(snapshotId)) users.add(holder);
  for (const holder of serveLeaseHolders(deps.dataDir, snapshotId)) users.add(holder);
  return [...users].sort();
}

/** Where replays keep their kubeconfigs: in the data dir (0700), emptied at start, so a crash leaves nothing behind for long. */
export const REPLAYS_DIR = 'replays';

export async function createSnapshotService(deps: SnapshotServiceDeps): Promise<SnapshotService> {
  const store = new SnapshotStore(deps.dataDir, deps.log);
  const tempRoot = path.join(deps.dataDir, REPLAYS_DIR);
  await fsp.rm(tempRoot, { recursive: true, force: true });
  await fsp.mkdir(tempRoot, { recursive: true, mode: 0o700 });
  const replays = new SnapshotReplays(store, { tempRoot });
  const usage = new Set<SnapshotUsage>();
  const exportLimiter = new ExportLimiter();
  const now = deps.now ?? (() => new Date());

  const usedBy = (snapshotId: string): string[] => usersOf(snapshotId, usage, replays, deps);

  const withUsage = (summary: StoredSummary): SnapshotSummary => {
    const { content_sha256: _hash, ...rest } = summary;
    return { ...rest, used_by: usedBy(summary.snapshot_id) };
  };

  async function freeId(name: string, wanted?: string): Promise<string> {
    if (wanted && !(await store.has(wanted))) return wanted;
    for (;;) {
      const id = newRecordId(name, 'snapshot');
      if (!(await store.has(id))) return id;
    }
  }

  async function stored(snapshotId: string): Promise<StoredSummary> {
    const summary = await store.summary(snapshotId);
    if (!summary) throw new ProblemError(404, 'snapshot_not_found', `no snapshot ${snapshotId}`);
    return summary;
  }

  async function exported(snapshotId: string): Promise<ExportedSnapshot | undefined> {
    const doc = await store.read(snapshotId);
    return doc ? ({ ...doc, snapshot_id: snapshotId } as ExportedSnapshot) : undefined;
  }

  return {
    has: (snapshotId) => store.has(snapshotId),

    async serve(snapshotId, holder): Promise<SnapshotLease> {
      return replays.serve(snapshotId, holder);
    },

    async record(tenantId, input, options = {}) {
      requireAppTenant('snapshots', tenantId);
      const { request, doc } = await recordRequested(input, options, deps, now);
      const id = await freeId(request.name);
      const summary = await store.write(id, doc, 'recorded', now());
      deps.log.info('recorded a snapshot', { snapshot_id: id, source: summary.source, pods: summary.counts.pods, size_bytes: summary.size_bytes });
      return withUsage(summary);
    },

    async list() {
      return { snapshots: (await store.list()).map(withUsage) };
    },

    async get(snapshotId) {
      return withUsage(await stored(snapshotId));
    },

    async export(snapshotId) {
      await stored(snapshotId);
      const doc = await exported(snapshotId);
      if (!doc) throw new ProblemError(404, 'snapshot_not_found', `no snapshot ${snapshotId} (its file could not be read and was set aside)`);
      return doc;
    },

    document: exported,

    async exportText(tenantId, snapshotId) {
      await stored(snapshotId);
      const text = await exportWithin(exportLimiter, tenantId, () => store.exportText(snapshotId));
      if (!text) throw new ProblemError(404, 'snapshot_not_found', `no snapshot ${snapshotId}`);
      return text;
    },

    async import(tenantId, document, options = {}) {
      requireAppTenant('snapshots', tenantId);
      const doc = await documentOf(document);
      const wanted = options.snapshotId ?? doc.snapshot_id;
      const hash = await contentHashSliced(doc);
      // The same content again is the same snapshot: its id (and every suite that names it) stays.
      if (wanted) {
        const existing = await store.summary(wanted);
        if (existing?.content_sha256 === hash) return withUsage(existing);
      }
      // Without a wanted id, or when another content holds it (a shipped snapshot changed by an
      // upgrade, imported again at every start), the copy already stored is the answer: no new one.
      const same = await store.findByContent(hash);
      if (same && (!wanted || (await store.has(wanted)))) return withUsage(same);
      const id = await freeId(doc.name, wanted);
      const summary = await store.write(id, doc, 'imported', now());
      replays.forget(id);
      deps.log.info('imported a snapshot', { snapshot_id: id, pods: summary.counts.pods, size_bytes: summary.size_bytes });
      return withUsage(summary);
    },

    async delete(tenantId, snapshotId) {
      requireAppTenant('snapshots', tenantId);
      await stored(snapshotId);
      const users = usedBy(snapshotId);
      if (users.length > 0) throw new ProblemError(409, 'snapshot_in_use', `snapshot ${snapshotId} is in use by ${users.join(', ')}; it can be deleted once nothing uses it`);
      await store.remove(snapshotId);
      replays.forget(snapshotId);
      deps.log.info('deleted a snapshot', { snapshot_id: snapshotId });
    },

    registerUsage(source) {
      usage.add(source);
      return () => void usage.delete(source);
    },

    usedBy,

    close: () => replays.closeAll(),
  };
}

export { SnapshotNotFoundError };
