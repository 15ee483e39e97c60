import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJobStore } from '../../src-main/store/job-store';
import { makeJob, memoryLogger, tempDataDir } from '../helpers/store';

/** Job records can hold backend credentials: the data dir is 0700 and its files 0600. */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

async function modes(root: string): Promise<{ rel: string; mode: number; dir: boolean }[]> {
  const out: { rel: string; mode: number; dir: boolean }[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await fsp.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.push({ rel: path.relative(root, p), mode: (await fsp.lstat(p)).mode & 0o777, dir: e.isDirectory() });
      if (e.isDirectory()) await walk(p);
    }
  };
  await walk(root);
  return out;
}

const info = { status: 'info', message: null, duration_ms: null, error_type: null, labels: {} } as const;

describe.runIf(process.platform !== 'win32')('data-dir permissions', () => {
  it('creates the data dir 0700 and every file in it 0600 (job, events, journal, index, idempotency, meta, lock)', async () => {
    const parent = await tempDataDir('benchdesk-perm-');
    dirs.push(parent);
    const dir = path.join(parent, 'data');
    const store = await openJobStore({ dataDir: dir, logger: memoryLogger(), releaseLockOnExit: false });
    const job = makeJob();
    await store.createJob(job, { tenant_id: job.tenant_id, kind: job.kind, key: 'k', fingerprint: 'f', job_id: job.job_id, created_at: job.created_at });
    await store.appendEvent({ job_id: job.job_id, event: 'job.queued', ...info });
    await store.flush();
    const open = await modes(dir);
    await store.close();
    const after = await modes(dir);

    expect((await fsp.stat(dir)).mode & 0o777).toBe(0o700);
    const all = [...open, ...after];
    const names = new Set(all.map((m) => m.rel));
    for (const expected of ['store.lock', 'index.jsonl', 'idempotency.jsonl', 'store-meta.json', 'journal']) expect(names).toContain(expected);
    expect([...names].some((n) => n.endsWith(`${job.job_id}.json`))).toBe(true);
    expect([...names].some((n) => n.endsWith(`${job.job_id}.events.jsonl`))).toBe(true);
    expect([...names].some((n) => n.startsWith('journal/') && n.endsWith('.jsonl'))).toBe(true);
    const loose = all.filter((m) => (m.dir ? m.mode !== 0o700 : m.mode !== 0o600)).map((m) => `${m.rel} ${m.mode.toString(8)}`);
    expect(loose).toEqual([]);
  });

  it('tightens an existing data dir left world-readable (0755 dir, 0644 files) at start', async () => {
    const dir = await tempDataDir('benchdesk-perm-');
    dirs.push(dir);
    const first = await openJobStore({ dataDir: dir, logger: memoryLogger(), releaseLockOnExit: false });
    await first.createJob(makeJob());
    await first.close();
    // What an older version left: everything readable by everyone, plus foreign files (settings, secrets).
    await fsp.writeFile(path.join(dir, 'settings.json'), '{}', { mode: 0o644 });
    await fsp.mkdir(path.join(dir, 'secrets'), { mode: 0o755 });
    await fsp.writeFile(path.join(dir, 'secrets', 'instance-1.token'), 't', { mode: 0o644 });
    for (const m of await modes(dir)) await fsp.chmod(path.join(dir, m.rel), m.dir ? 0o755 : 0o644);
    await fsp.chmod(dir, 0o755);
    // A symlink pointing out of the data dir is not followed.
    const outside = path.join(await tempDataDir('benchdesk-perm-out-'), 'outside.txt');
    dirs.push(path.dirname(outside));
    await fsp.writeFile(outside, 'x', { mode: 0o644 });
    await fsp.symlink(outside, path.join(dir, 'link'));

    const logger = memoryLogger();
    const store = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false });
    await store.close();
    expect((await fsp.stat(dir)).mode & 0o777).toBe(0o700);
    const loose = (await modes(dir)).filter((m) => m.rel !== 'link' && (m.dir ? m.mode !== 0o700 : m.mode !== 0o600));
    expect(loose).toEqual([]);
    expect((await fsp.stat(outside)).mode & 0o777).toBe(0o644);
    expect(logger.warnings().some((w) => w.startsWith("tightened the data dir's permissions to owner-only"))).toBe(true);

    // Already tight: the next start does not walk the dir again (no warning).
    const quiet = memoryLogger();
    await (await openJobStore({ dataDir: dir, logger: quiet, releaseLockOnExit: false })).close();
    expect(quiet.warnings()).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'link'))).toBe(true);
  });
});
