import type { JobEvent } from '../../shared';

type Listener = (event: JobEvent) => void;

/** How many recent events the bus keeps so a reconnecting feed subscriber can resume (Last-Event-ID). */
export const FEED_REPLAY_EVENTS = 5_000;

/**
 * In-process fan-out of persisted job events to live subscribers (SSE streams, IPC windows).
 * Events are published only after the store has them, so a subscriber that reads the backlog
 * first and then listens never sees an event that is not on disk.
 */
export class EventBus {
  private readonly byJob = new Map<string, Set<Listener>>();
  private readonly byTenant = new Map<string, Set<Listener>>();
  /** Circular buffer of the latest events with their tenant, for feed resume; `next` is the oldest once full. */
  private readonly ring: { tenantId: string; event: JobEvent }[] = [];
  private next = 0;
  /**
   * Every event after this seq went through this bus and is still in the ring: it starts at the
   * store's last seq when the bus was made (earlier events were never published here) and moves up
   * as the ring overwrites its oldest entries.
   */
  private coveredAfter: number;
  /** The newest seq published here (or the start position). */
  private newest: number;

  constructor(
    private readonly replayCapacity = FEED_REPLAY_EVENTS,
    options: { startSeq?: number } = {},
  ) {
    this.coveredAfter = options.startSeq ?? 0;
    this.newest = this.coveredAfter;
  }

  publish(tenantId: string, event: JobEvent): void {
    if (event.seq > this.newest) this.newest = event.seq;
    if (this.ring.length < this.replayCapacity) this.ring.push({ tenantId, event });
    else {
      const dropped = this.ring[this.next];
      if (dropped && dropped.event.seq > this.coveredAfter) this.coveredAfter = dropped.event.seq;
      this.ring[this.next] = { tenantId, event };
    }
    this.next = (this.next + 1) % this.replayCapacity;
    for (const listener of this.byJob.get(event.job_id) ?? []) safeCall(listener, event);
    for (const listener of this.byTenant.get(tenantId) ?? []) safeCall(listener, event);
  }

  subscribeJob(jobId: string, listener: Listener): () => void {
    return add(this.byJob, jobId, listener);
  }

  subscribeTenant(tenantId: string, listener: Listener): () => void {
    return add(this.byTenant, tenantId, listener);
  }

  /**
   * The tenant's events after `afterSeq` that are still in the replay ring, oldest first.
   * `complete` is false when events after `afterSeq` may be missing: they came before this bus
   * (a restart) or fell out of the ring. `oldestSeq` is the oldest seq the ring holds, `newestSeq`
   * the newest published (or the start position).
   */
  replay(tenantId: string, afterSeq: number): { events: JobEvent[]; complete: boolean; oldestSeq: number | null; newestSeq: number } {
    const full = this.ring.length === this.replayCapacity;
    const start = full ? this.next : 0;
    const oldestSeq = this.ring[start]?.event.seq ?? null;
    const complete = afterSeq >= this.coveredAfter;
    const events: JobEvent[] = [];
    for (let i = 0; i < this.ring.length; i++) {
      const entry = this.ring[(start + i) % this.ring.length] as { tenantId: string; event: JobEvent };
      if (entry.tenantId === tenantId && entry.event.seq > afterSeq) events.push(entry.event);
    }
    return { events, complete, oldestSeq, newestSeq: this.newest };
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.byJob.values()) n += set.size;
    for (const set of this.byTenant.values()) n += set.size;
    return n;
  }
}

function add(map: Map<string, Set<Listener>>, key: string, listener: Listener): () => void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(listener);
  return () => {
    const current = map.get(key);
    if (!current) return;
    current.delete(listener);
    if (current.size === 0) map.delete(key);
  };
}

function safeCall(listener: Listener, event: JobEvent): void {
  try {
    listener(event);
  } catch {
    // A broken subscriber (closed socket, destroyed window) must not break the job.
  }
}
