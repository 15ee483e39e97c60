import { JOB_KINDS, JOB_STATUSES, type JobKind, type JobRecord, type JobStatus } from '../../shared';
import type { CursorKey } from './cursor';
import { isRecord } from './jsonl';

/** What list/filter/cursor need of a job, kept in memory for every job (~250 B each). */
export type IndexEntry = {
  job_id: string;
  tenant_id: string;
  kind: JobKind;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  /** Creation ordinal: breaks created_at ties and makes the cursor stable. */
  ord: number;
  /** created_at as epoch ms (created_at may carry any RFC 3339 offset, so strings do not sort). */
  ts: number;
};

/** An index line on disk: the entry without ts (derived). */
export type IndexLine = Omit<IndexEntry, 'ts'>;
export type IndexDrop = { op: 'drop'; job_id: string };

const KINDS: ReadonlySet<string> = new Set(JOB_KINDS);
const STATUSES: ReadonlySet<string> = new Set(JOB_STATUSES);

export function indexLineOf(record: JobRecord, ord: number): IndexLine {
  return {
    job_id: record.job_id,
    tenant_id: record.tenant_id,
    kind: record.kind,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    ord,
  };
}

/** Hand-rolled check: at open this runs once per line (100k+), where a schema library costs too much. */
export function parseIndexLine(value: unknown): IndexLine | IndexDrop | undefined {
  if (!isRecord(value)) return undefined;
  if (value.op === 'drop') return typeof value.job_id === 'string' ? { op: 'drop', job_id: value.job_id } : undefined;
  const { job_id, tenant_id, kind, status, created_at, updated_at, ord } = value;
  if (
    typeof job_id !== 'string' ||
    typeof tenant_id !== 'string' ||
    typeof kind !== 'string' ||
    !KINDS.has(kind) ||
    typeof status !== 'string' ||
    !STATUSES.has(status) ||
    typeof created_at !== 'string' ||
    Number.isNaN(Date.parse(created_at)) ||
    typeof updated_at !== 'string' ||
    typeof ord !== 'number' ||
    !Number.isSafeInteger(ord)
  ) {
    return undefined;
  }
  return { job_id, tenant_id, kind: kind as JobKind, status: status as JobStatus, created_at, updated_at, ord };
}

function compareKey(a: CursorKey, b: CursorKey): number {
  return a.ts - b.ts || a.ord - b.ord;
}

/**
 * All jobs' index entries: by id, and per tenant sorted by (created_at, ord) ascending, so a page is
 * a walk backwards from the cursor. Jobs are created with rising timestamps, so inserts land at the
 * end of the array almost always.
 */
export class JobIndex {
  private readonly byId = new Map<string, IndexEntry>();
  private readonly byTenant = new Map<string, IndexEntry[]>();
  // Interned so 100k entries share one copy of each tenant string.
  private readonly tenants = new Map<string, string>();
  private maxOrd = 0;

  get size(): number {
    return this.byId.size;
  }

  has(jobId: string): boolean {
    return this.byId.has(jobId);
  }

  get(jobId: string): IndexEntry | undefined {
    return this.byId.get(jobId);
  }

  nextOrd(): number {
    return ++this.maxOrd;
  }

  /** Inserts or updates (status, updated_at) in place; the sort position never changes. */
  upsert(line: IndexLine): void {
    if (line.ord > this.maxOrd) this.maxOrd = line.ord;
    const existing = this.byId.get(line.job_id);
    if (existing) {
      existing.status = line.status;
      existing.updated_at = line.updated_at;
      return;
    }
    const tenant = this.tenants.get(line.tenant_id) ?? line.tenant_id;
    this.tenants.set(tenant, tenant);
    const entry: IndexEntry = { ...line, tenant_id: tenant, ts: Date.parse(line.created_at) };
    this.byId.set(entry.job_id, entry);
    let list = this.byTenant.get(tenant);
    if (!list) {
      list = [];
      this.byTenant.set(tenant, list);
    }
    const last = list[list.length - 1];
    if (!last || compareKey(last, entry) < 0) list.push(entry);
    else list.splice(upperBound(list, entry), 0, entry);
  }

  drop(jobId: string): void {
    const entry = this.byId.get(jobId);
    if (!entry) return;
    this.byId.delete(jobId);
    const list = this.byTenant.get(entry.tenant_id);
    const i = list ? list.indexOf(entry) : -1;
    if (list && i >= 0) list.splice(i, 1);
  }

  /**
   * Up to `limit` entries newest first, strictly below `before` when given, matching the filters;
   * `more` says whether another match exists below the last one.
   */
  page(
    tenantId: string,
    filter: { status?: JobStatus | undefined; kind?: JobKind | undefined },
    limit: number,
    before: CursorKey | undefined,
  ): { entries: IndexEntry[]; more: boolean } {
    const list = this.byTenant.get(tenantId) ?? [];
    const entries: IndexEntry[] = [];
    let i = before ? lowerBound(list, before) - 1 : list.length - 1;
    for (; i >= 0; i--) {
      const e = list[i];
      if (!e || (filter.status !== undefined && e.status !== filter.status) || (filter.kind !== undefined && e.kind !== filter.kind)) continue;
      if (entries.length === limit) return { entries, more: true };
      entries.push(e);
    }
    return { entries, more: false };
  }

  /** Every tenant's entries in these statuses, oldest first. */
  byStatus(statuses: readonly JobStatus[]): IndexEntry[] {
    const want = new Set(statuses);
    const out: IndexEntry[] = [];
    for (const e of this.byId.values()) if (want.has(e.status)) out.push(e);
    return out.sort(compareKey);
  }

  /**
   * How many of a tenant's jobs are in each status and of each kind (by_status honours the kind
   * filter, by_kind does not, so the kind menu can show every kind's count). One pass, no I/O.
   */
  counts(tenantId: string, kind?: JobKind): { total: number; by_status: Record<JobStatus, number>; by_kind: Record<JobKind, number> } {
    const by_status = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    const by_kind = Object.fromEntries(JOB_KINDS.map((k) => [k, 0])) as Record<JobKind, number>;
    let total = 0;
    for (const e of this.byTenant.get(tenantId) ?? []) {
      by_kind[e.kind]++;
      if (kind !== undefined && e.kind !== kind) continue;
      by_status[e.status]++;
      total++;
    }
    return { total, by_status, by_kind };
  }

  /** A tenant's entries oldest first (a copy: safe to iterate across awaits). */
  tenantEntries(tenantId: string): IndexEntry[] {
    return [...(this.byTenant.get(tenantId) ?? [])];
  }

  /** Every entry in creation order (for compaction). */
  allInOrder(): IndexEntry[] {
    return [...this.byId.values()].sort((a, b) => a.ord - b.ord);
  }
}

/** First index whose key is >= key. */
function lowerBound(list: readonly IndexEntry[], key: CursorKey): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = list[mid];
    if (e && compareKey(e, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose key is > key. */
function upperBound(list: readonly IndexEntry[], key: CursorKey): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = list[mid];
    if (e && compareKey(e, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
