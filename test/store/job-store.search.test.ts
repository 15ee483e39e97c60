import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoredRequestSchemas, type JobRecord, type JobSort } from '../../shared';
import { openJobStore } from '../../src-main/store/job-store';
import { FACTS_VERSION } from '../../src-main/store/job-index';
import { LAYOUT } from '../../src-main/store/layout';
import { InvalidCursorError, type JobStore } from '../../src-main/store/types';
import { makeJob, memoryLogger, tempDataDir } from '../helpers/store';

/** Search (`q`) and sort over every job of a tenant, paged by cursor, as GET /v1/jobs offers them. */

const open: JobStore[] = [];
const dirs: string[] = [];

async function openStore(dir?: string): Promise<{ store: JobStore; dir: string }> {
  const d = dir ?? (await tempDataDir());
  if (!dirs.includes(d)) dirs.push(d);
  const store = await openJobStore({ dataDir: d, logger: memoryLogger(), releaseLockOnExit: false });
  open.push(store);
  return { store, dir: d };
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2031, 0, 1);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A finished job that ran `runS` seconds; `rentedDph` rents a machine for that time. */
function finished(i: number, opts: { runS: number; model?: string; status?: 'succeeded' | 'failed'; error?: string; code?: string; rentedDph?: number; backend?: string; question?: string; agent?: string }): JobRecord {
  const created = at(i * 100);
  const started = at(i * 100 + 1);
  const ended = at(i * 100 + 1 + opts.runS);
  const request = StoredRequestSchemas['agentic-agent'].parse({
    backend_url: opts.backend ?? 'http://127.0.0.1:11434',
    model: opts.model ?? 'llama3.1:8b',
    question: opts.question ?? 'why?',
    agent: opts.agent ?? 'builtin',
  });
  return makeJob({
    kind: 'agentic-agent',
    request,
    created_at: created,
    updated_at: ended,
    started_at: started,
    finished_at: ended,
    status: opts.status ?? 'succeeded',
    message: opts.status === 'failed' ? 'failed' : 'done',
    error: opts.error ?? null,
    error_code: opts.code ?? null,
    resources: opts.rentedDph ? { dph_total: opts.rentedDph, rented_at: started, marketplace_instance_id: 1000 + i, marketplace_instance_released: true } : null,
  } as Partial<JobRecord>);
}

async function all(store: JobStore, query: { q?: string; sort?: JobSort; status?: 'failed' | 'succeeded' }, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.listJobs({ tenant_id: 'default', limit, ...query, ...(cursor ? { cursor } : {}) });
    ids.push(...page.jobs.map((j) => j.job_id));
    if (!page.next_cursor) return ids;
    cursor = page.next_cursor;
  }
  throw new Error('paging did not end');
}

describe('search and sort', () => {
  async function seeded() {
    const { store, dir } = await openStore();
    const jobs = [
      finished(1, { runS: 30, model: 'qwen2.5:7b' }),
      finished(2, { runS: 5, status: 'failed', error: 'the llmserver at http://10.0.0.9:11434 did not answer\n  at connect', code: 'upstream_unreachable' }),
      finished(3, { runS: 600, rentedDph: 0.5, backend: 'http://gpu-host:40123', question: 'Why is the checkout pod crash-looping?', agent: 'k8sgpt' }),
      finished(4, { runS: 60, rentedDph: 2 }),
      // Never started: no duration, no cost.
      makeJob({ kind: 'benchmark', created_at: at(500), updated_at: at(500) }),
    ];
    for (const j of jobs) await store.createJob(j);
    return { store, dir, jobs };
  }

  it('finds jobs by id, model, backend, message and error code, every word, any case, across pages', async () => {
    const { store, jobs } = await seeded();
    const id = (i: number) => jobs[i]?.job_id ?? '';
    expect(await all(store, { q: 'QWEN' })).toEqual([id(0)]);
    expect(await all(store, { q: 'did not answer' })).toEqual([id(1)]);
    expect(await all(store, { q: 'upstream_unreachable' })).toEqual([id(1)]);
    expect(await all(store, { q: 'gpu-host' })).toEqual([id(2)]);
    expect(await all(store, { q: id(3) })).toEqual([id(3)]);
    // The question and the agent too.
    expect(await all(store, { q: 'Crash-Looping' })).toEqual([id(2)]);
    expect(await all(store, { q: 'checkout k8sgpt' })).toEqual([id(2)]);
    // Every word must occur: "llama" matches four jobs, "llama done" the three that succeeded.
    expect(await all(store, { q: 'llama3.1' })).toEqual([id(3), id(2), id(1)]);
    expect(await all(store, { q: 'llama3.1 done' }, 1)).toEqual([id(3), id(2)]);
    expect(await all(store, { q: '   ' })).toHaveLength(5);
    expect(await all(store, { q: 'nothing-like-this' })).toEqual([]);
    // With a status filter, and the counts agree.
    expect(await all(store, { q: 'llama3.1', status: 'failed' })).toEqual([id(1)]);
    const counts = store.countJobs('default', undefined, 'llama3.1');
    expect(counts.total).toBe(3);
    expect(counts.by_status).toMatchObject({ succeeded: 2, failed: 1, queued: 0 });
    expect(counts.by_kind['agentic-agent']).toBe(3);
  });

  it('sorts by created, duration and cost both ways over all jobs, missing figures last, paged by cursor', async () => {
    const { store, jobs } = await seeded();
    const id = (i: number) => jobs[i]?.job_id ?? '';
    expect(await all(store, { sort: '-created' })).toEqual([id(4), id(3), id(2), id(1), id(0)]);
    expect(await all(store, { sort: 'created' })).toEqual([id(0), id(1), id(2), id(3), id(4)]);
    expect(await all(store, { sort: '-duration' })).toEqual([id(2), id(3), id(0), id(1), id(4)]);
    expect(await all(store, { sort: 'duration' })).toEqual([id(1), id(0), id(3), id(2), id(4)]);
    // 600 s at $0.50/h = $0.083; 60 s at $2/h = $0.033; the others rented nothing.
    expect(await all(store, { sort: '-cost' })).toEqual([id(2), id(3), id(4), id(1), id(0)]);
    expect(await all(store, { sort: 'cost' })).toEqual([id(3), id(2), id(0), id(1), id(4)]);
    expect(await all(store, { sort: '-cost', q: 'llama3.1' }, 1)).toEqual([id(2), id(3), id(1)]);
  });

  it('refuses a cursor of another sort', async () => {
    const { store } = await seeded();
    const page = await store.listJobs({ tenant_id: 'default', limit: 1, sort: '-cost' });
    expect(page.next_cursor).not.toBeNull();
    await expect(store.listJobs({ tenant_id: 'default', limit: 1, sort: '-duration', cursor: page.next_cursor ?? '' })).rejects.toBeInstanceOf(InvalidCursorError);
    const created = await store.listJobs({ tenant_id: 'default', limit: 1 });
    await expect(store.listJobs({ tenant_id: 'default', limit: 1, sort: 'cost', cursor: created.next_cursor ?? '' })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('a machine still billing is ranked by what it has cost so far', async () => {
    const { store } = await openStore();
    const cheap = finished(1, { runS: 60, rentedDph: 1 }); // $0.017
    const billing = makeJob({ kind: 'benchmark', status: 'running', created_at: at(0), updated_at: at(0), started_at: at(0), resources: { dph_total: 1, rented_at: new Date(Date.now() - 3_600_000).toISOString() } });
    for (const j of [cheap, billing]) await store.createJob(j);
    expect(await all(store, { sort: '-cost' })).toEqual([billing.job_id, cheap.job_id]);
  });

  it('keeps search and sort facts across reopen, follows updates, and fills them in for an index of an older version', async () => {
    const { store, dir, jobs } = await seeded();
    const id = (i: number) => jobs[i]?.job_id ?? '';
    await store.updateJob(id(4), { status: 'failed', message: 'failed', error: 'template not found', error_code: 'template_missing', started_at: at(501), finished_at: at(9000) });
    expect(await all(store, { q: 'template_missing' })).toEqual([id(4)]);
    await store.close();
    open.splice(open.indexOf(store), 1);

    const reopened = (await openStore(dir)).store;
    expect(await all(reopened, { q: 'template not found' })).toEqual([id(4)]);
    expect((await all(reopened, { sort: '-duration' }))[0]).toBe(id(4));
    await reopened.close();
    open.splice(open.indexOf(reopened), 1);

    // An index written before search existed: lines without the facts (no `v`).
    const indexFile = path.join(dir, LAYOUT.indexFile);
    const old = (await fsp.readFile(indexFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map(({ job_id, tenant_id, kind, status, created_at, updated_at, ord }) => JSON.stringify({ job_id, tenant_id, kind, status, created_at, updated_at, ord }));
    await fsp.writeFile(indexFile, `${old.join('\n')}\n`);
    const upgraded = (await openStore(dir)).store;
    expect(await all(upgraded, { q: 'qwen' })).toEqual([id(0)]);
    expect(await all(upgraded, { sort: '-cost' })).toEqual([id(2), id(3), id(4), id(1), id(0)]);
    expect(await all(upgraded, { q: 'template_missing' })).toEqual([id(4)]);
    expect(await all(upgraded, { q: 'crash-looping' })).toEqual([id(2)]);
    // Rewritten once: every line carries the facts now.
    const lines = (await fsp.readFile(indexFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { v?: number });
    expect(lines.every((l) => l.v === FACTS_VERSION)).toBe(true);
    await upgraded.close();
    open.splice(open.indexOf(upgraded), 1);

    // An index of the version before questions and agents were searched (v 2): filled in the same way.
    const v2 = lines.map((l) => {
      const { ask: _ask, agent: _agent, ...rest } = l as Record<string, unknown>;
      return JSON.stringify({ ...rest, v: 2 });
    });
    await fsp.writeFile(indexFile, `${v2.join('\n')}\n`);
    const fromV2 = (await openStore(dir)).store;
    expect(await all(fromV2, { q: 'k8sgpt' })).toEqual([id(2)]);
  });
});
