import { isTerminal, type JobEvent, type JobRecord, type SpendSummary } from '../../shared';
import { machineUsd, roundUsd } from '../lease/cost';
import type { Ledger, SpendItem } from '../lease/ledger';
import type { JobStore } from '../store/types';

/**
 * Spend (the Overview's): every lease of the tenant in the ledger, with the one cost formula
 * (machine time up to the release, or now while it bills, plus downloads): jobs' machines, kept
 * llm-instance machines until they are released, and sweeps' machines. A cost counts on the day
 * its machine was released (today, while it bills). Jobs from before the ledger (no lease) are
 * read from their records as those versions wrote them.
 */

/**
 * A job from before the ledger: a benchmark's or suite's recorded `result.cost.cost_usd`; otherwise,
 * for a job that rented a machine, `dph_total` × the time from `rented_at` to the job's end (or to
 * now while it runs), plus its recorded download.
 */
export function jobSpend(job: JobRecord, now: Date): { cost_usd: number; at: Date; running_dph: number } | null {
  if (job.kind === 'benchmark' && job.result) {
    return { cost_usd: job.result.cost.cost_usd, at: new Date(job.finished_at ?? job.updated_at), running_dph: 0 };
  }
  if (job.kind === 'suite' && job.result) {
    return job.result.cost ? { cost_usd: job.result.cost.cost_usd, at: new Date(job.finished_at ?? job.updated_at), running_dph: 0 } : null;
  }
  const res = job.resources;
  if (!res?.dph_total || !res.rented_at) return null;
  const running = !isTerminal(job.status);
  const end = running ? now : new Date(job.finished_at ?? job.updated_at);
  return { cost_usd: roundUsd(machineUsd(res.dph_total, new Date(res.rented_at).getTime(), end.getTime()) + (res.download_usd ?? 0)), at: end, running_dph: running ? res.dph_total : 0 };
}

function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}
function startOfMonth(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), 1);
}

/** Jobs created this long before the month began are not read: none runs that long. */
const LOOKBACK_BEFORE_MONTH_MS = 14 * 24 * 3600 * 1000;
const PAGE = 200;

/** The jobs of the month (and the fortnight before it) that have no lease: their costs as their records say. */
async function spendBeforeLedger(store: JobStore, ledger: Pick<Ledger, 'has'> | null, tenantId: string, now: Date, oldest: number): Promise<SpendItem[]> {
  const items: SpendItem[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.listJobs({ tenant_id: tenantId, limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const job of page.jobs) {
      if (new Date(job.created_at).getTime() < oldest) return items;
      if (ledger?.has(job.job_id)) continue;
      const spend = jobSpend(job, now);
      if (spend) items.push({ lease_id: job.job_id, kind: job.kind, ...spend });
    }
    if (!page.next_cursor) return items;
    cursor = page.next_cursor;
  }
}

export async function computeSpend(store: JobStore, tenantId: string, now: Date, ledger: Pick<Ledger, 'has' | 'spendItems'> | null = null): Promise<SpendSummary> {
  const day = startOfDay(now);
  const month = startOfMonth(now);
  const oldest = month.getTime() - LOOKBACK_BEFORE_MONTH_MS;
  const today = { cost_usd: 0, jobs: 0 };
  const thisMonth = { cost_usd: 0, jobs: 0 };
  const running = { cost_usd: 0, jobs: 0, dph_total: 0 };
  const byKind: Record<string, { cost_usd: number; jobs: number }> = {};
  const items = [...(ledger?.spendItems(tenantId, now) ?? []), ...(await spendBeforeLedger(store, ledger, tenantId, now, oldest))];
  for (const spend of items) {
    if (spend.cost_usd <= 0 && spend.running_dph === 0) continue;
    if (spend.running_dph > 0) {
      running.cost_usd += spend.cost_usd;
      running.jobs += 1;
      running.dph_total += spend.running_dph;
    }
    if (spend.at < month) continue;
    thisMonth.cost_usd += spend.cost_usd;
    thisMonth.jobs += 1;
    const kind = (byKind[spend.kind] ??= { cost_usd: 0, jobs: 0 });
    kind.cost_usd += spend.cost_usd;
    kind.jobs += 1;
    if (spend.at >= day) {
      today.cost_usd += spend.cost_usd;
      today.jobs += 1;
    }
  }
  for (const b of [today, thisMonth, running, ...Object.values(byKind)]) b.cost_usd = roundUsd(b.cost_usd);
  running.dph_total = roundUsd(running.dph_total);
  return {
    tenant_id: tenantId,
    today: { ...today, since: day.toISOString() },
    this_month: { ...thisMonth, since: month.toISOString() },
    by_kind: byKind,
    running,
    computed_at: now.toISOString(),
  };
}

/** Events after which a tenant's spend may have changed. */
function changesSpend(event: JobEvent): boolean {
  return event.event.startsWith('job.') || event.event === 'cost.update' || event.event.startsWith('marketplace.instance');
}

/**
 * Spend per tenant, recomputed only when the ledger changed (a rent, a download, a release) or one
 * of its jobs ended or reported a cost, or after `maxAgeMs` (a running machine's cost grows with
 * time). The Overview polls it, so a scan runs at most once per change, not once per poll.
 */
export class SpendCache {
  private readonly entries = new Map<string, { value: SpendSummary; at: number; dirty: boolean; pending?: Promise<SpendSummary> }>();
  private readonly unsubscribers = new Map<string, () => void>();

  constructor(
    private readonly deps: {
      store: JobStore;
      /** The ledger: every rented machine's cost (null: jobs' records only). */
      ledger?: Pick<Ledger, 'has' | 'spendItems' | 'onChange'> | null;
      subscribe: (tenantId: string, listener: (event: JobEvent) => void) => () => void;
      now?: () => Date;
      maxAgeMs?: number;
    },
  ) {
    // Any change of the ledger (a rent, a download, a release) may change any tenant's spend.
    this.unsubscribers.set(
      '\u0000ledger',
      deps.ledger?.onChange((lease) => {
        const entry = this.entries.get(lease.tenant_id);
        if (entry) entry.dirty = true;
      }) ?? (() => undefined),
    );
  }

  async get(tenantId: string): Promise<SpendSummary> {
    const now = this.deps.now?.() ?? new Date();
    if (!this.unsubscribers.has(tenantId)) {
      this.unsubscribers.set(
        tenantId,
        this.deps.subscribe(tenantId, (event) => {
          const entry = this.entries.get(tenantId);
          if (entry && changesSpend(event)) entry.dirty = true;
        }),
      );
    }
    const entry = this.entries.get(tenantId);
    const fresh = entry && !entry.dirty && now.getTime() - entry.at < (this.deps.maxAgeMs ?? 15_000) && sameDay(new Date(entry.at), now);
    if (entry && fresh) return entry.value;
    if (entry?.pending) return entry.pending;
    const pending = computeSpend(this.deps.store, tenantId, now, this.deps.ledger ?? null);
    const slot = entry ?? { value: undefined as unknown as SpendSummary, at: 0, dirty: true };
    slot.pending = pending;
    slot.dirty = false;
    this.entries.set(tenantId, slot);
    try {
      slot.value = await pending;
      slot.at = now.getTime();
      return slot.value;
    } catch (err) {
      slot.dirty = true;
      throw err;
    } finally {
      delete slot.pending;
    }
  }

  close(): void {
    for (const off of this.unsubscribers.values()) off();
    this.unsubscribers.clear();
  }
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
