import Conf from 'conf';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidTransitionError, type JobRecord } from '../../shared';
import { openJobStore } from '../../src-main/store/job-store';
import { JOURNAL_SYNCS_ON_WRITE } from '../../src-main/store/journal';
import { eventsFilePath, jobFilePath, jobShardDir } from '../../src-main/store/layout';
import { makeJob, memoryLogger, tempDataDir } from '../helpers/store';
import { InsufficientStorageError, InvalidCursorError, JobExistsError, JobNotFoundError, type JobStore } from '../../src-main/store/types';

const open: JobStore[] = [];
const dirs: string[] = [];

async function openStore(dataDir?: string, extra: { cacheSize?: number; checkpointBytes?: number; seqBlock?: number; maxUnwrittenEntries?: number; spaceRetryMs?: number } = {}) {
  const dir = dataDir ?? (await tempDataDir());
  if (!dirs.includes(dir)) dirs.push(dir);
  const logger = memoryLogger();
  const store = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false, ...extra });
  open.push(store);
  return { store, dir, logger };
}

/** Retries a create until the store takes it (after a full disk cleared). */
async function waitUntilStoreWrites(store: JobStore): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      await store.createJob(makeJob());
      return;
    } catch (err) {
      if (!(err instanceof InsufficientStorageError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function closeStore(store: JobStore): Promise<void> {
  await store.close();
  open.splice(open.indexOf(store), 1);
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

describe('job records', () => {
  it('creates, reads and updates a job; the file is conf format', async () => {
    const { store, dir } = await openStore();
    const job = makeJob();
    await store.createJob(job);
    expect(await store.getJob(job.job_id)).toEqual(job);
    expect(store.count()).toBe(1);

    // Durable on resolve: the record is in its own file already (via the journal + materialiser).
    await store.flush();
    const conf = new Conf<Record<string, unknown>>({ cwd: jobShardDir(dir, job.job_id), configName: job.job_id, accessPropertiesByDotNotation: false });
    expect(conf.store).toEqual(job);
    expect(await fsp.readFile(jobFilePath(dir, job.job_id), 'utf8')).toBe(JSON.stringify(job, null, '\t'));

    const updated = await store.updateJob(job.job_id, { status: 'running', started_at: '2030-01-01T00:10:00.000Z', message: 'running' });
    expect(updated.status).toBe('running');
    expect(updated.started_at).toBe('2030-01-01T00:10:00.000Z');
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(job.updated_at));
    expect(await store.getJob(job.job_id)).toEqual(updated);
  });

  it('rejects a duplicate job_id, an unknown job, an unsafe id and an invalid record', async () => {
    const { store } = await openStore();
    const job = makeJob();
    await store.createJob(job);
    await expect(store.createJob(job)).rejects.toBeInstanceOf(JobExistsError);
    await expect(store.updateJob('nope', { message: 'x' })).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(store.createJob(makeJob({ job_id: '../escape' }))).rejects.toThrow(/safe file name/);
    await expect(store.createJob({ ...makeJob(), status: 'weird' } as unknown as JobRecord)).rejects.toThrow();
    expect(await store.getJob('nope')).toBeUndefined();
    expect(store.count()).toBe(1);
  });

  it('enforces the transition table and leaves the record unchanged on a bad transition', async () => {
    const { store } = await openStore();
    const job = makeJob();
    await store.createJob(job);
    await expect(store.updateJob(job.job_id, { status: 'succeeded', message: 'skipped running' })).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await store.getJob(job.job_id)).toEqual(job);

    await store.updateJob(job.job_id, { status: 'running' });
    const done = await store.updateJob(job.job_id, { status: 'succeeded', message: 'done' });
    await expect(store.updateJob(job.job_id, { status: 'running' })).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await store.getJob(job.job_id)).toEqual(done);
    // Same status is not a transition; other fields still update.
    const again = await store.updateJob(job.job_id, { status: 'succeeded', message: 'note' });
    expect(again.message).toBe('note');
    const page = await store.listJobs({ tenant_id: 'default', status: 'succeeded', limit: 10 });
    expect(page.jobs.map((j) => j.job_id)).toEqual([job.job_id]);
  });

  it('serialises concurrent updates of one job', async () => {
    const { store } = await openStore(undefined, { cacheSize: 1 });
    const job = makeJob();
    await store.createJob(job);
    await store.createJob(makeJob()); // evicts the first from the one-entry cache
    await store.flush();
    const results = await Promise.allSettled([
      store.updateJob(job.job_id, { status: 'running' }),
      store.updateJob(job.job_id, { status: 'succeeded' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((await store.getJob(job.job_id))?.status).toBe('succeeded');
  });

  it('hands out frozen records without freezing the caller\'s objects', async () => {
    const { store } = await openStore();
    const job = makeJob();
    await store.createJob(job);
    expect(Object.isFrozen(job.request)).toBe(false);
    job.request.model = 'changed by caller';
    expect((await store.getJob(job.job_id))?.request.model).toBe('llama3');
    const got = await store.getJob(job.job_id);
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got as JobRecord).message = 'changed';
    }).toThrow(TypeError);
  });
});

describe('listing', () => {
  it('pages newest first with a cursor that stays stable while jobs arrive', async () => {
    const { store } = await openStore();
    const jobs = Array.from({ length: 25 }, () => makeJob());
    for (const j of jobs) await store.createJob(j);
    const newestFirst = [...jobs].reverse().map((j) => j.job_id);

    const p1 = await store.listJobs({ tenant_id: 'default', limit: 10 });
    expect(p1.jobs.map((j) => j.job_id)).toEqual(newestFirst.slice(0, 10));
    expect(p1.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);

    // New jobs (newer) arrive between pages: the next page continues where the first stopped.
    await store.createJob(makeJob());
    await store.createJob(makeJob());
    const p2 = await store.listJobs({ tenant_id: 'default', limit: 10, cursor: p1.next_cursor ?? undefined });
    expect(p2.jobs.map((j) => j.job_id)).toEqual(newestFirst.slice(10, 20));
    const p3 = await store.listJobs({ tenant_id: 'default', limit: 10, cursor: p2.next_cursor ?? undefined });
    expect(p3.jobs.map((j) => j.job_id)).toEqual(newestFirst.slice(20, 25));
    expect(p3.next_cursor).toBeNull();

    await expect(store.listJobs({ tenant_id: 'default', limit: 10, cursor: 'garbage!' })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('orders equal created_at by creation order and handles offsets', async () => {
    const { store } = await openStore();
    const a = makeJob({ created_at: '2031-05-05T10:00:00.000Z' });
    const b = makeJob({ created_at: '2031-05-05T10:00:00.000Z' });
    const c = makeJob({ created_at: '2031-05-05T12:30:00+02:00' }); // 10:30Z: newest despite the string
    const d = makeJob({ created_at: '2031-05-05T09:00:00.000Z' }); // created last but oldest
    for (const j of [a, b, c, d]) await store.createJob(j);
    const all = await store.listJobs({ tenant_id: 'default', limit: 2 });
    const rest = await store.listJobs({ tenant_id: 'default', limit: 2, cursor: all.next_cursor ?? undefined });
    expect([...all.jobs, ...rest.jobs].map((j) => j.job_id)).toEqual([c.job_id, b.job_id, a.job_id, d.job_id]);
    expect(rest.next_cursor).toBeNull();
  });

  it('is tenant-scoped and filters by status and kind', async () => {
    const { store } = await openStore();
    const mine = [makeJob(), makeJob({ kind: 'llm-instance' }), makeJob({ kind: 'agentic-agent' })];
    const theirs = [makeJob({ tenant_id: 'acme' }), makeJob({ tenant_id: 'acme', kind: 'llm-instance' })];
    for (const j of [...mine, ...theirs]) await store.createJob(j);
    await store.updateJob(mine[0]?.job_id ?? '', { status: 'running' });

    const def = await store.listJobs({ tenant_id: 'default', limit: 50 });
    expect(def.jobs.map((j) => j.job_id).sort()).toEqual(mine.map((j) => j.job_id).sort());
    const acme = await store.listJobs({ tenant_id: 'acme', limit: 50 });
    expect(acme.jobs.every((j) => j.tenant_id === 'acme')).toBe(true);
    expect(acme.jobs).toHaveLength(2);
    expect((await store.listJobs({ tenant_id: 'nobody', limit: 5 })).jobs).toEqual([]);

    const llm = await store.listJobs({ tenant_id: 'default', kind: 'llm-instance', limit: 50 });
    expect(llm.jobs.map((j) => j.job_id)).toEqual([mine[1]?.job_id]);
    const running = await store.listJobs({ tenant_id: 'default', status: 'running', limit: 50 });
    expect(running.jobs.map((j) => j.job_id)).toEqual([mine[0]?.job_id]);
    const queuedAcmeLlm = await store.listJobs({ tenant_id: 'acme', status: 'queued', kind: 'llm-instance', limit: 50 });
    expect(queuedAcmeLlm.jobs.map((j) => j.job_id)).toEqual([theirs[1]?.job_id]);

    // Filtered pagination: one match per page, no empty last page.
    const p1 = await store.listJobs({ tenant_id: 'default', status: 'queued', limit: 1 });
    const p2 = await store.listJobs({ tenant_id: 'default', status: 'queued', limit: 1, cursor: p1.next_cursor ?? undefined });
    expect([...p1.jobs, ...p2.jobs].map((j) => j.job_id)).toEqual([mine[2]?.job_id, mine[1]?.job_id]);
    expect(p2.next_cursor).toBeNull();
  });

  it('lists by status across tenants, oldest first', async () => {
    const { store } = await openStore();
    const a = makeJob();
    const b = makeJob({ tenant_id: 'acme' });
    const c = makeJob();
    for (const j of [a, b, c]) await store.createJob(j);
    await store.updateJob(c.job_id, { status: 'running' });
    await store.updateJob(b.job_id, { status: 'cancelled' });
    const recovering = await store.listJobsByStatus(['queued', 'running']);
    expect(recovering.map((j) => j.job_id)).toEqual([a.job_id, c.job_id]);
  });
});

describe('events', () => {
  it('keeps per-job order and a global seq that rises across close and reopen', async () => {
    const { store, dir } = await openStore(undefined, { seqBlock: 3 });
    const a = makeJob();
    const b = makeJob({ tenant_id: 'acme' });
    await store.createJob(a);
    await store.createJob(b);
    const e1 = await store.appendEvent({ job_id: a.job_id, event: 'job.queued', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} });
    const e2 = await store.appendEvent({ job_id: b.job_id, event: 'job.queued', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} });
    const e3 = await store.appendEvent({
      job_id: a.job_id,
      event: 'phase.provision',
      status: 'ok',
      message: 'done',
      duration_ms: 12.5,
      error_type: null,
      labels: { gpu: 'A100', n: 2 },
    });
    expect([e1.seq, e2.seq, e3.seq]).toEqual([1, 2, 3]);
    expect(e1.recorded_at).toMatch(/Z$/);
    expect((await store.listEvents(a.job_id)).map((e) => e.seq)).toEqual([1, 3]);
    expect((await store.listEvents(a.job_id, 1)).map((e) => e.event)).toEqual(['phase.provision']);
    await expect(
      store.appendEvent({ job_id: 'missing', event: 'x', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} }),
    ).rejects.toBeInstanceOf(JobNotFoundError);
    await closeStore(store);

    const { store: again } = await openStore(dir, { seqBlock: 3 });
    expect((await again.listEvents(a.job_id)).map((e) => [e.seq, e.event])).toEqual([
      [1, 'job.queued'],
      [3, 'phase.provision'],
    ]);
    const e4 = await again.appendEvent({ job_id: a.job_id, event: 'job.running', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} });
    expect(e4.seq).toBeGreaterThan(3);
    const seqs = (await again.listEvents(a.job_id)).map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(seqs).toEqual([1, 3, e4.seq]);

    // scanEvents is tenant-scoped.
    const scanned: number[] = [];
    for await (const ev of again.scanEvents('default')) scanned.push(ev.seq);
    expect(scanned).toEqual([1, 3, e4.seq]);
    const acme: string[] = [];
    for await (const ev of again.scanEvents('acme')) acme.push(ev.job_id);
    expect(acme).toEqual([b.job_id]);
    const crossTenant: unknown[] = [];
    for await (const ev of again.scanEvents('acme', a.job_id)) crossTenant.push(ev);
    expect(crossTenant).toEqual([]);
    const events = await fsp.readFile(eventsFilePath(dir, a.job_id), 'utf8');
    expect(events.trim().split('\n')).toHaveLength(3);
  });

  it('returns events not yet materialised and many concurrent appends keep distinct seqs', async () => {
    const { store } = await openStore(undefined, { seqBlock: 10 });
    const job = makeJob();
    await store.createJob(job);
    const evs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.appendEvent({ job_id: job.job_id, event: `step.${i}`, status: 'info', message: null, duration_ms: null, error_type: null, labels: {} }),
      ),
    );
    const listed = await store.listEvents(job.job_id);
    expect(listed.map((e) => e.seq)).toEqual(evs.map((e) => e.seq));
    expect(new Set(evs.map((e) => e.seq)).size).toBe(40);
  });
});

describe('durability and group commit', () => {
  it('keeps records, events and idempotency across reopen', async () => {
    const { store, dir } = await openStore();
    const job = makeJob({ kind: 'llm-instance', tenant_id: 't1' });
    const idem = { tenant_id: 't1', kind: 'llm-instance' as const, key: 'k-1', fingerprint: 'f'.repeat(64), job_id: job.job_id, created_at: new Date().toISOString() };
    await store.createJob(job, idem);
    await store.updateJob(job.job_id, { status: 'running', progress: { phase: 'warmup' } });
    await store.appendEvent({ job_id: job.job_id, event: 'llmserver.warmup', status: 'started', message: null, duration_ms: null, error_type: null, labels: {} });
    await closeStore(store);
    // A clean close leaves no journal to replay.
    expect(await fsp.readdir(path.join(dir, 'journal'))).toEqual([]);

    const { store: again } = await openStore(dir);
    const got = await again.getJob(job.job_id);
    expect(got?.status).toBe('running');
    expect(got?.progress).toEqual({ phase: 'warmup' });
    expect(await again.getIdempotency('t1', 'llm-instance', 'k-1')).toEqual(idem);
    expect(await again.getIdempotency('t1', 'benchmark', 'k-1')).toBeUndefined();
    expect((await again.listEvents(job.job_id)).map((e) => e.event)).toEqual(['llmserver.warmup']);
    expect(again.count()).toBe(1);
  });

  it('shares one durable journal write among writes started in the same tick', async () => {
    const { store, dir } = await openStore();
    const probe = await fsp.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void>; write: (buffer: Buffer) => Promise<unknown> };
    await probe.close();
    const datasync = vi.spyOn(proto, 'datasync');
    const write = vi.spyOn(proto, 'write');
    try {
      await Promise.all(Array.from({ length: 50 }, () => store.createJob(makeJob())));
      expect(store.count()).toBe(50);
      // With O_DSYNC each journal write is the sync; without it, each batch's fdatasync is.
      const journalWrites = write.mock.calls.filter(([buffer]) => Buffer.isBuffer(buffer) && buffer.includes('{"t":"job"')).length;
      const syncs = JOURNAL_SYNCS_ON_WRITE ? journalWrites : datasync.mock.calls.length;
      expect(syncs).toBeGreaterThanOrEqual(1);
      expect(syncs).toBeLessThanOrEqual(2);
      // 50 jobs in at most two journal batches, whichever way they are made durable.
      expect(journalWrites).toBeLessThanOrEqual(2);
    } finally {
      datasync.mockRestore();
      write.mockRestore();
    }
  });

  describe('back-pressure when job files lag behind the journal', () => {
    /** Holds the store's job-file writes (callback fs.writeFile) under `dir` until released. */
    function holdJobFileWrites(dir: string) {
      const real = fs.writeFile as unknown as (...args: unknown[]) => void;
      const held: unknown[][] = [];
      let holding = true;
      const spy = vi.spyOn(fs, 'writeFile').mockImplementation(((...args: unknown[]) => {
        if (holding && String(args[0]).startsWith(dir)) held.push(args);
        else real(...args);
      }) as never);
      return {
        get held() {
          return held.length;
        },
        /** Lets them through, or fails them as a full disk does. */
        release(failWith?: NodeJS.ErrnoException) {
          holding = false;
          for (const args of held.splice(0)) {
            const cb = args[args.length - 1] as (err: NodeJS.ErrnoException | null) => void;
            if (failWith) process.nextTick(cb, failWith);
            else real(...args);
          }
        },
        restore: () => spy.mockRestore(),
      };
    }
    const settledWithin = async (p: Promise<unknown>, ms: number) =>
      Promise.race([p.then(() => 'resolved', () => 'rejected'), new Promise((r) => setTimeout(() => r('pending'), ms))]);

    it('holds a commit while too many entries wait for their files, and lets it through once a round is written', async () => {
      const { store, dir } = await openStore(undefined, { maxUnwrittenEntries: 1 });
      const gate = holdJobFileWrites(dir);
      try {
        const jobs = [makeJob(), makeJob(), makeJob()];
        await store.createJob(jobs[0] as JobRecord); // its file write is held: 1 entry unwritten
        await store.createJob(jobs[1] as JobRecord); // 1 ≤ 1: committed, now 2 unwritten
        const third = store.createJob(jobs[2] as JobRecord);
        expect(await settledWithin(third, 100)).toBe('pending');
        expect(gate.held).toBe(1);
        gate.release();
        expect(await settledWithin(third, 5_000)).toBe('resolved');
        await store.flush();
        for (const j of jobs) expect((await store.getJob(j.job_id))?.job_id).toBe(j.job_id);
      } finally {
        gate.restore();
      }
    });

    it('a commit waiting for room is refused 507-style when the disk fills, and writes resume once it has room', async () => {
      const { store, dir } = await openStore(undefined, { maxUnwrittenEntries: 1, spaceRetryMs: 20 });
      const gate = holdJobFileWrites(dir);
      try {
        await store.createJob(makeJob());
        await store.createJob(makeJob());
        const waiting = store.createJob(makeJob());
        expect(await settledWithin(waiting, 100)).toBe('pending');
        const full: NodeJS.ErrnoException = Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC' });
        gate.release(full); // the held round fails on a full disk: the materialiser stalls on it
        await expect(waiting).rejects.toBeInstanceOf(InsufficientStorageError);
        // The retry (every 20 ms) goes through now: the store takes writes again by itself.
        await waitUntilStoreWrites(store);
        await store.flush();
        expect(store.count()).toBe(3);
      } finally {
        gate.restore();
      }
    });
  });

  it('rotates the journal and checkpoints in the background without losing writes', async () => {
    const { store, dir } = await openStore(undefined, { checkpointBytes: 4096 });
    const jobs = Array.from({ length: 60 }, () => makeJob());
    for (const j of jobs) {
      await store.createJob(j);
      await store.updateJob(j.job_id, { status: 'running' });
    }
    await store.flush();
    await closeStore(store);
    expect(await fsp.readdir(path.join(dir, 'journal'))).toEqual([]);
    const { store: again } = await openStore(dir);
    expect(again.count()).toBe(60);
    expect((await again.listJobsByStatus(['running'])).map((j) => j.job_id)).toEqual(jobs.map((j) => j.job_id));
  });

  it('prunes old idempotency records durably', async () => {
    const { store, dir } = await openStore();
    const oldJob = makeJob();
    const newJob = makeJob();
    const base = { tenant_id: 'default', kind: 'benchmark' as const, fingerprint: 'x' };
    await store.createJob(oldJob, { ...base, key: 'old', job_id: oldJob.job_id, created_at: new Date(Date.now() - 25 * 3600_000).toISOString() });
    await store.createJob(newJob, { ...base, key: 'new', job_id: newJob.job_id, created_at: new Date().toISOString() });
    expect(await store.pruneIdempotency(24 * 3600_000)).toBe(1);
    expect(await store.getIdempotency('default', 'benchmark', 'old')).toBeUndefined();
    expect((await store.getIdempotency('default', 'benchmark', 'new'))?.job_id).toBe(newJob.job_id);
    expect(await store.pruneIdempotency(24 * 3600_000)).toBe(0);
    await closeStore(store);
    const { store: again } = await openStore(dir);
    expect(await again.getIdempotency('default', 'benchmark', 'old')).toBeUndefined();
    expect((await again.getIdempotency('default', 'benchmark', 'new'))?.job_id).toBe(newJob.job_id);
    // The job itself is not touched by pruning its key.
    expect(await again.getJob(oldJob.job_id)).toBeDefined();
  });

  it('refuses writes after close', async () => {
    const { store } = await openStore();
    await closeStore(store);
    await expect(store.createJob(makeJob())).rejects.toThrow(/closed/);
  });
});
