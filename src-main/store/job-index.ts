import { JOB_KINDS, JOB_STATUSES, matchesWords, type JobKind, type JobSort, type JobStatus } from '../../shared';
import type { CursorKey, ListPosition } from './cursor';
import { FACTS_VERSION, hasFacts, type IndexEntry, type IndexLine } from './index-line';

export { FACTS_VERSION, factsOf, hasFacts, indexLineOf, lineOfEntry, parseIndexLine, type IndexDrop, type IndexEntry, type IndexFacts, type IndexLine } from './index-line';

function compareKey(a: CursorKey, b: CursorKey): number {
  return a.ts - b.ts || a.ord - b.ord;
}

export type PageFilter = {
  status?: JobStatus | undefined;
  kind?: JobKind | undefined;
  /** Lower-case words that must all occur in the job's id, model, backend, note, error code, question or agent. */
  words?: readonly string[] | undefined;
  sort?: JobSort | undefined;
};

/** The value a sort orders by (null: the job has none and comes last). */
function sortValue(e: IndexEntry, sort: JobSort, now: number): number | null {
  switch (sort) {
    case '-created':
    case 'created':
      return e.ts;
    case '-duration':
    case 'duration':
      return e.dur ?? null;
    case '-cost':
    case 'cost': {
      if (e.cost !== undefined) return e.cost;
      if (e.dph === undefined || e.since === undefined) return null;
      const since = Date.parse(e.since);
      return Number.isFinite(since) ? (e.dph * Math.max(0, now - since)) / 3_600_000 : null;
    }
  }
}

/** Order of two list positions under a sort: missing values last, ties by creation in the sort's direction. */
function comparePositions(a: ListPosition, b: ListPosition, desc: boolean): number {
  if (a.value === null || b.value === null) {
    if (a.value !== b.value) return a.value === null ? 1 : -1;
  } else if (a.value !== b.value) {
    return desc ? b.value - a.value : a.value - b.value;
  }
  return desc ? b.ord - a.ord : a.ord - b.ord;
}

/**
 * All jobs' index entries: by id, and per tenant sorted by (created_at, ord) ascending, so a page is
 * a walk backwards from the cursor. Jobs are created with rising timestamps, so inserts land at the
 * end of the array almost always.
 */
export class JobIndex {
  private readonly byId = new Map<string, IndexEntry>();
  private readonly byTenant = new Map<string, IndexEntry[]>();
  // Interned so 100k entries share one copy of each tenant, model, backend, code and short note.
  private readonly strings = new Map<string, string>();
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

  private intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    this.strings.set(s, s);
    return s;
  }

  private setFacts(entry: IndexEntry, line: IndexLine): void {
    delete entry.model;
    delete entry.backend;
    delete entry.note;
    delete entry.code;
    delete entry.ask;
    delete entry.agent;
    delete entry.dur;
    delete entry.cost;
    delete entry.dph;
    delete entry.since;
    entry.hay = undefined;
    if (line.v !== FACTS_VERSION) {
      delete entry.v;
      return;
    }
    entry.v = FACTS_VERSION;
    if (line.model !== undefined) entry.model = this.intern(line.model);
    if (line.backend !== undefined) entry.backend = this.intern(line.backend);
    if (line.note !== undefined) entry.note = line.note.length <= 40 ? this.intern(line.note) : line.note;
    if (line.code !== undefined) entry.code = this.intern(line.code);
    // Questions repeat across runs of one benchmark: interned, they are held once.
    if (line.ask !== undefined) entry.ask = this.intern(line.ask);
    if (line.agent !== undefined) entry.agent = this.intern(line.agent);
    if (line.dur !== undefined) entry.dur = line.dur;
    if (line.cost !== undefined) entry.cost = line.cost;
    if (line.dph !== undefined) entry.dph = line.dph;
    if (line.since !== undefined) entry.since = line.since;
  }

  /** Inserts, or updates status, updated_at and the facts in place; the sort position never changes. */
  upsert(line: IndexLine): void {
    if (line.ord > this.maxOrd) this.maxOrd = line.ord;
    const existing = this.byId.get(line.job_id);
    if (existing) {
      existing.status = line.status;
      existing.updated_at = line.updated_at;
      this.setFacts(existing, line);
      return;
    }
    const tenant = this.intern(line.tenant_id);
    const entry: IndexEntry = {
      job_id: line.job_id,
      tenant_id: tenant,
      kind: line.kind,
      status: line.status,
      created_at: line.created_at,
      updated_at: line.updated_at,
      ord: line.ord,
      ts: Date.parse(line.created_at),
    };
    this.setFacts(entry, line);
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

  private matches(e: IndexEntry, filter: PageFilter): boolean {
    if (filter.status !== undefined && e.status !== filter.status) return false;
    if (filter.kind !== undefined && e.kind !== filter.kind) return false;
    const words = filter.words;
    if (!words || words.length === 0) return true;
    e.hay ??= `${e.job_id}\n${e.model ?? ''}\n${e.backend ?? ''}\n${e.note ?? ''}\n${e.code ?? ''}\n${e.ask ?? ''}\n${e.agent ?? ''}`.toLowerCase();
    return matchesWords(e.hay, words);
  }

  /**
   * Up to `limit` entries in the filter's sort order (newest first by default), strictly after
   * `after` when given, matching the filters; `more` says whether another match follows the last
   * one, and `last` is the position of the last entry (the next page's cursor).
   */
  page(tenantId: string, filter: PageFilter, limit: number, after: ListPosition | undefined, now: number = Date.now()): { entries: IndexEntry[]; more: boolean; last: ListPosition | undefined } {
    const sort = filter.sort ?? '-created';
    const list = this.byTenant.get(tenantId) ?? [];
    const entries: IndexEntry[] = [];
    const positionOf = (e: IndexEntry): ListPosition => ({ value: sortValue(e, sort, now), ord: e.ord });
    if (sort === '-created' || sort === 'created') {
      // The list is already in creation order: walk it from the cursor, no sort needed.
      const key = after && after.value !== null ? { ts: after.value, ord: after.ord } : undefined;
      if (sort === '-created') {
        for (let i = key ? lowerBound(list, key) - 1 : list.length - 1; i >= 0; i--) {
          const e = list[i];
          if (!e || !this.matches(e, filter)) continue;
          if (entries.length === limit) return { entries, more: true, last: positionOf(entries[entries.length - 1] as IndexEntry) };
          entries.push(e);
        }
      } else {
        for (let i = key ? upperBound(list, key) : 0; i < list.length; i++) {
          const e = list[i];
          if (!e || !this.matches(e, filter)) continue;
          if (entries.length === limit) return { entries, more: true, last: positionOf(entries[entries.length - 1] as IndexEntry) };
          entries.push(e);
        }
      }
      const lastEntry = entries[entries.length - 1];
      return { entries, more: false, last: lastEntry ? positionOf(lastEntry) : undefined };
    }
    // Duration and cost: sort the matching entries by their value (cost may grow while a machine bills).
    const desc = sort.startsWith('-');
    const ranked: { e: IndexEntry; p: ListPosition }[] = [];
    for (const e of list) {
      if (!this.matches(e, filter)) continue;
      const p = positionOf(e);
      if (after && comparePositions(p, after, desc) <= 0) continue;
      ranked.push({ e, p });
    }
    ranked.sort((a, b) => comparePositions(a.p, b.p, desc));
    const chosen = ranked.slice(0, limit);
    return { entries: chosen.map((r) => r.e), more: ranked.length > limit, last: chosen[chosen.length - 1]?.p };
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
   * filter, by_kind does not, so the kind menu can show every kind's count; both honour the
   * search words). One pass, no I/O.
   */
  counts(tenantId: string, kind?: JobKind, words?: readonly string[]): { total: number; by_status: Record<JobStatus, number>; by_kind: Record<JobKind, number> } {
    const by_status = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    const by_kind = Object.fromEntries(JOB_KINDS.map((k) => [k, 0])) as Record<JobKind, number>;
    const search: PageFilter = { words };
    let total = 0;
    for (const e of this.byTenant.get(tenantId) ?? []) {
      if (words && words.length > 0 && !this.matches(e, search)) continue;
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

  /** Entries written by an older version, without the facts search and sort need. */
  withoutFacts(): IndexEntry[] {
    const out: IndexEntry[] = [];
    for (const e of this.byId.values()) if (!hasFacts(e)) out.push(e);
    return out;
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
