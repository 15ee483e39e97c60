import type { CanonicalSnapshot } from './document';
import { ReplayIndex } from './replay/replay-index';
import { startReplay, type ReplayServer } from './replay/server';
import type { SnapshotStore } from './snapshot-store';

/**
 * Serving stored snapshots for as long as someone needs them: a job asks for a lease, gets a
 * replay of its own (its own port, token and kubeconfig) and closes the lease when it ends. The
 * prepared index of a snapshot is kept while a lease uses it and for the few snapshots served
 * last, so a suite that runs ten scenarios one after another does not parse each one twice.
 */

export type SnapshotLease = {
  readonly snapshotId: string;
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** A kubeconfig for the replay (0600, in a temp dir removed when the lease closes). */
  readonly kubeconfigPath: string;
  close(): Promise<void>;
};

/** What the engine needs to run a job on a snapshot (implemented by SnapshotReplays). */
export interface SnapshotLeases {
  /** Whether a snapshot of this id is stored. */
  has(snapshotId: string): Promise<boolean>;
  /** Serves the snapshot until the lease closes; `holder` names who holds it (e.g. "job 1f3c…"), shown while it is in use. Throws SnapshotNotFoundError. */
  serve(snapshotId: string, holder: string): Promise<SnapshotLease>;
}

export class SnapshotNotFoundError extends Error {
  override name = 'SnapshotNotFoundError';
  constructor(readonly snapshotId: string) {
    super(`no snapshot ${snapshotId}: list them with benchdesk snapshot list`);
  }
}

const KEPT_INDEXES = 4;

export class SnapshotReplays implements SnapshotLeases {
  private readonly leases = new Map<string, Map<symbol, { holder: string; server: ReplayServer }>>();
  private readonly indexes = new Map<string, { hash: string; index: ReplayIndex }>();
  private closed = false;

  constructor(
    private readonly store: SnapshotStore,
    private readonly options: { tempRoot?: string } = {},
  ) {}

  has(snapshotId: string): Promise<boolean> {
    return this.store.has(snapshotId);
  }

  async serve(snapshotId: string, holder: string): Promise<SnapshotLease> {
    if (this.closed) throw new Error('the snapshot replays are shut down');
    const index = await this.indexOf(snapshotId);
    const server = await startReplay(index, { contextName: `benchdesk-snapshot-${snapshotId}`, ...(this.options.tempRoot ? { tempRoot: this.options.tempRoot } : {}) });
    const key = Symbol(holder);
    let held = this.leases.get(snapshotId);
    if (!held) this.leases.set(snapshotId, (held = new Map()));
    held.set(key, { holder, server });
    let closing: Promise<void> | undefined;
    return {
      snapshotId,
      url: server.url,
      kubeconfigPath: server.kubeconfigPath,
      close: () =>
        (closing ??= (async () => {
          const current = this.leases.get(snapshotId);
          current?.delete(key);
          if (current?.size === 0) this.leases.delete(snapshotId);
          await server.close();
        })()),
    };
  }

  /** Who holds a lease on the snapshot now. */
  holders(snapshotId: string): string[] {
    return [...(this.leases.get(snapshotId)?.values() ?? [])].map((l) => l.holder);
  }

  /** Forgets a snapshot's prepared index (it was deleted or replaced). */
  forget(snapshotId: string): void {
    this.indexes.delete(snapshotId);
  }

  /** Stops every replay (server shutdown). */
  async closeAll(): Promise<void> {
    this.closed = true;
    const servers = [...this.leases.values()].flatMap((m) => [...m.values()].map((l) => l.server));
    this.leases.clear();
    await Promise.all(servers.map((s) => s.close()));
  }

  private async indexOf(snapshotId: string): Promise<ReplayIndex> {
    const summary = await this.store.summary(snapshotId);
    if (!summary) throw new SnapshotNotFoundError(snapshotId);
    const cached = this.indexes.get(snapshotId);
    if (cached && cached.hash === summary.content_sha256) {
      // Most recently used last.
      this.indexes.delete(snapshotId);
      this.indexes.set(snapshotId, cached);
      return cached.index;
    }
    const doc: CanonicalSnapshot | undefined = await this.store.read(snapshotId);
    if (!doc) throw new SnapshotNotFoundError(snapshotId);
    const index = new ReplayIndex(doc);
    this.indexes.set(snapshotId, { hash: summary.content_sha256, index });
    while (this.indexes.size > KEPT_INDEXES) {
      const oldest = [...this.indexes.keys()].find((id) => !this.leases.has(id));
      if (oldest === undefined) break;
      this.indexes.delete(oldest);
    }
    return index;
  }
}
