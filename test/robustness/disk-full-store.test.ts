import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJobStore } from '../../src-main/store/job-store';
import { jobFilePath } from '../../src-main/store/layout';
import { makeJob, memoryLogger, tempDataDir } from '../helpers/store';
import { InsufficientStorageError, type JobStore } from '../../src-main/store/types';
import { injectDiskFull, type DiskFull } from '../helpers/disk-full';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(faultDir?: (dataDir: string) => string) {
  const dir = await tempDataDir('benchdesk-full-');
  cleanups.push(() => fsp.rm(dir, { recursive: true, force: true }));
  // Installed first, so the store's long-lived handles (journal, index) go through it too.
  const disk = await injectDiskFull(faultDir ? faultDir(dir) : dir);
  cleanups.push(() => disk.restore());
  const logger = memoryLogger();
  const store = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false, spaceRetryMs: 20 });
  cleanups.push(() => store.close().catch(() => undefined));
  return { dir, store, logger, disk };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const info = { status: 'info', message: null, duration_ms: null, error_type: null, labels: {} } as const;

async function reopen(dir: string, store: JobStore, disk: DiskFull) {
  disk.restore();
  await store.close().catch(() => undefined);
  const logger = memoryLogger();
  const again = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false });
  cleanups.push(() => again.close());
  return { store: again, logger };
}

describe('a full disk', () => {
  it('refuses writes with InsufficientStorageError, shows nothing that was refused, and recovers once space is back', async () => {
    const { dir, store, disk } = await setup();
    const kept = makeJob();
    await store.createJob(kept);
    await store.appendEvent({ job_id: kept.job_id, event: 'job.queued', ...info });
    expect(store.storageHealth()).toEqual({ status: 'ok' });

    disk.full = true;
    const refused = makeJob();
    const err = await store.createJob(refused).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientStorageError);
    expect((err as Error).message).toContain(dir);
    expect((err as Error).message).toContain('ENOSPC');
    expect(disk.refused).toBeGreaterThan(0);

    // Not durable, so not visible: neither by id nor in the listing, and the id is free again.
    expect(await store.getJob(refused.job_id)).toBeUndefined();
    expect((await store.listJobs({ tenant_id: 'default', limit: 50 })).jobs.map((j) => j.job_id)).toEqual([kept.job_id]);
    await expect(store.updateJob(kept.job_id, { status: 'running' })).rejects.toBeInstanceOf(InsufficientStorageError);
    expect((await store.getJob(kept.job_id))?.status).toBe('queued');
    await expect(store.appendEvent({ job_id: kept.job_id, event: 'x', ...info })).rejects.toBeInstanceOf(InsufficientStorageError);
    expect((await store.listEvents(kept.job_id)).map((e) => e.event)).toEqual(['job.queued']);

    const health = store.storageHealth();
    expect(health.status).toBe('degraded');
    expect(health.status === 'degraded' && health.reason).toContain(dir);

    // Space is back: health recovers by itself (the probe), and writes go through again.
    disk.full = false;
    await until(() => store.storageHealth().status === 'ok', 'health to recover');
    await store.createJob(refused);
    const running = await store.updateJob(kept.job_id, { status: 'running' });
    expect(running.status).toBe('running');
    await store.appendEvent({ job_id: kept.job_id, event: 'after', ...info });
    await store.flush();

    // Nothing torn: a reopen replays cleanly, with no corrupt lines set aside.
    const { store: again, logger } = await reopen(dir, store, disk);
    expect(logger.warnings()).toEqual([]);
    expect((await again.listJobs({ tenant_id: 'default', limit: 50 })).jobs.map((j) => j.job_id).sort()).toEqual([kept.job_id, refused.job_id].sort());
    expect((await again.getJob(kept.job_id))?.status).toBe('running');
    expect((await again.listEvents(kept.job_id)).map((e) => e.event)).toEqual(['job.queued', 'after']);
    expect(await fsp.readdir(path.join(dir, 'corrupt')).catch(() => [])).toEqual([]);
  });

  it('health stays degraded while a write of the refused size would still fail, even when a small file fits; a real write turns it ok', async () => {
    const { store, disk } = await setup();
    const big = makeJob();
    // A batch of about 300 KB (a stored request keeps unknown fields), on a disk that takes at most 100 KB in one write.
    (big.request as Record<string, unknown>).notes = 'n'.repeat(300 * 1024);
    disk.room = 100 * 1024;
    await expect(store.createJob(big)).rejects.toBeInstanceOf(InsufficientStorageError);
    expect(store.storageHealth().status).toBe('degraded');
    const refusedBefore = disk.refused;
    // Let the space probe run several times (every 20 ms): each is refused, health does not flap to ok.
    await until(() => disk.refused >= refusedBefore + 3, 'three probes');
    expect(store.storageHealth().status).toBe('degraded');

    disk.room = null;
    await until(() => store.storageHealth().status === 'ok', 'health to recover by a real write');
    await store.createJob(big);
    expect((await store.getJob(big.job_id))?.job_id).toBe(big.job_id);
  });

  it('retries a journaled batch whose job files hit the full disk, and refuses new writes meanwhile', async () => {
    // Only the job files' dirs are full: the journal takes the write, materialising it fails.
    const { dir, store, disk } = await setup((d) => path.join(d, 'jobs'));
    const first = makeJob();
    await store.createJob(first);
    await store.flush();

    disk.full = true;
    const second = makeJob();
    await store.createJob(second); // durable in the journal
    await store.appendEvent({ job_id: second.job_id, event: 'job.queued', ...info });
    await until(() => store.storageHealth().status === 'degraded', 'the stalled batch to show in health');
    // Journaled, so visible and readable (from memory) although its file is not written yet.
    expect((await store.getJob(second.job_id))?.job_id).toBe(second.job_id);
    await expect(store.createJob(makeJob())).rejects.toBeInstanceOf(InsufficientStorageError);

    disk.full = false;
    await until(() => store.storageHealth().status === 'ok', 'the stalled batch to go through');
    await store.flush();
    const third = makeJob();
    await store.createJob(third);

    const { store: again, logger } = await reopen(dir, store, disk);
    expect(logger.warnings()).toEqual([]);
    expect(again.count()).toBe(3);
    // The retry did not append the event twice.
    expect((await again.listEvents(second.job_id)).map((e) => e.event)).toEqual(['job.queued']);
  });

  it('serves a job whose file a rewrite on the full disk cut short from memory, and the next open repairs the file', async () => {
    const { dir, store, disk } = await setup((d) => path.join(d, 'jobs'));
    const job = makeJob();
    await store.createJob(job);
    await store.flush();
    const file = jobFilePath(dir, job.job_id);

    disk.full = true;
    await store.updateJob(job.job_id, { status: 'running' }); // durable in the journal
    await until(() => store.storageHealth().status === 'degraded', 'the stalled rewrite to show in health');
    // The file is rewritten in place: the refused write left it cut short.
    await expect(fsp.readFile(file, 'utf8').then((text) => JSON.parse(text) as unknown)).rejects.toThrow(SyntaxError);
    expect((await store.getJob(job.job_id))?.status).toBe('running');

    // Closed while still stalled: the journal keeps the version, and the replay writes the file whole.
    const { store: again, logger } = await reopen(dir, store, disk);
    expect((await again.getJob(job.job_id))?.status).toBe('running');
    expect(JSON.parse(await fsp.readFile(file, 'utf8'))).toMatchObject({ job_id: job.job_id, status: 'running' });
    expect(logger.warnings()).toEqual([]);
    await expect(fsp.readdir(path.join(dir, 'corrupt'))).rejects.toThrow(/ENOENT/);
  });

  it('keeps a failed fsync from deleting the journal that still covers the files', async () => {
    const { dir, store, disk } = await setup();
    await store.createJob(makeJob());
    disk.full = true;
    // close() checkpoints (fsync of every file) and would then delete the journal.
    await expect(store.close()).rejects.toThrow(/ENOSPC/);
    disk.full = false;
    expect((await fsp.readdir(path.join(dir, 'journal'))).length).toBe(1);
    const { store: again, logger } = await reopen(dir, store, disk);
    expect(logger.lines.some((l) => /^replayed 1 journal entry/.test(l.msg))).toBe(true);
    expect(again.count()).toBe(1);
  });
});
