import type { JobEvent } from '../../shared';

type Listener = (event: JobEvent) => void;

/**
 * In-process fan-out of persisted job events to live subscribers (SSE streams, IPC windows).
 * Events are published only after the store has them, so a subscriber that reads the backlog
 * first and then listens never sees an event that is not on disk.
 */
export class EventBus {
  private readonly byJob = new Map<string, Set<Listener>>();
  private readonly byTenant = new Map<string, Set<Listener>>();

  publish(tenantId: string, event: JobEvent): void {
    for (const listener of this.byJob.get(event.job_id) ?? []) safeCall(listener, event);
    for (const listener of this.byTenant.get(tenantId) ?? []) safeCall(listener, event);
  }

  subscribeJob(jobId: string, listener: Listener): () => void {
    return add(this.byJob, jobId, listener);
  }

  subscribeTenant(tenantId: string, listener: Listener): () => void {
    return add(this.byTenant, tenantId, listener);
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
