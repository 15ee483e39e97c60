import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJobStore } from '../../src-main/store/job-store';
import { eventsFilePath, jobFilePath, journalFilePath } from '../../src-main/store/layout';
import { makeJob, memoryLogger, tempDataDir } from '../helpers/store';
import type { JobStore } from '../../src-main/store/types';

const stores: JobStore[] = [];
const dirs: string[] = [];

async function openAt(dir: string) {
  const logger = memoryLogger();
  const store = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false });
  stores.push(store);
  return { store, logger };
}

async function freshDir(): Promise<string> {
  const dir = await tempDataDir();
  dirs.push(dir);
  return dir;
}

async function corruptFiles(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(path.join(dir, 'corrupt'));
  } catch {
    return [];
  }
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

const info = { status: 'info', message: null, duration_ms: null, error_type: null, labels: {} } as const;

describe('corruption is set aside, never silently dropped', () => {
  it('moves a corrupt job file aside, logs it, and keeps the other jobs', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const bad = makeJob();
    const good = makeJob();
    await store.createJob(bad);
    await store.createJob(good);
    await store.close();
    const original = '{"job_id": "' + bad.job_id + '", "tenant';
    await fsp.writeFile(jobFilePath(dir, bad.job_id), original);

    const { store: again, logger } = await openAt(dir);
    expect(again.count()).toBe(2); // open does not read job files
    expect(await again.getJob(bad.job_id)).toBeUndefined();
    expect(logger.warnings().some((w) => w.includes(`job file of ${bad.job_id} is corrupt`))).toBe(true);
    const aside = await corruptFiles(dir);
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(new RegExp(`^${bad.job_id}\\.json\\.`));
    expect(await fsp.readFile(path.join(dir, 'corrupt', aside[0] ?? ''), 'utf8')).toBe(original);
    expect(again.count()).toBe(1);
    expect((await again.listJobs({ tenant_id: 'default', limit: 10 })).jobs.map((j) => j.job_id)).toEqual([good.job_id]);
    await again.close();

    // The drop is remembered: the next open does not list the job again.
    const { store: third } = await openAt(dir);
    expect(third.count()).toBe(1);
    expect(await third.getJob(good.job_id)).toEqual(good);
  });

  it('drops a job whose file vanished from the listing, with a warning', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const a = makeJob();
    const b = makeJob();
    await store.createJob(a);
    await store.createJob(b);
    await store.close();
    await fsp.rm(jobFilePath(dir, b.job_id));
    const { store: again, logger } = await openAt(dir);
    const page = await again.listJobs({ tenant_id: 'default', limit: 10 });
    expect(page.jobs.map((j) => j.job_id)).toEqual([a.job_id]);
    expect(logger.warnings().some((w) => w.includes(`job file of ${b.job_id} is missing`))).toBe(true);
  });

  it('keeps the good lines of an index with a torn tail', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const jobs = [makeJob(), makeJob(), makeJob()];
    for (const j of jobs) await store.createJob(j);
    await store.close();
    const torn = '{"job_id":"half-writ';
    await fsp.appendFile(path.join(dir, 'index.jsonl'), torn);

    const { store: again, logger } = await openAt(dir);
    expect(again.count()).toBe(3);
    expect(logger.warnings().some((w) => w.includes('index.jsonl: torn last line'))).toBe(true);
    const aside = await corruptFiles(dir);
    expect(aside).toHaveLength(1);
    expect(await fsp.readFile(path.join(dir, 'corrupt', aside[0] ?? ''), 'utf8')).toBe(torn);
    const index = await fsp.readFile(path.join(dir, 'index.jsonl'), 'utf8');
    expect(index.endsWith('\n')).toBe(true);
    expect(index).not.toContain('half-writ');
  });

  it('rebuilds the index from the job files when a middle line is corrupt', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const jobs = [makeJob(), makeJob(), makeJob({ tenant_id: 'acme' })];
    for (const j of jobs) await store.createJob(j);
    await store.updateJob(jobs[0]?.job_id ?? '', { status: 'running' });
    await store.close();
    const file = path.join(dir, 'index.jsonl');
    const lines = (await fsp.readFile(file, 'utf8')).split('\n');
    lines.splice(1, 0, '\u0000\u0000garbage\u0000');
    await fsp.writeFile(file, lines.join('\n'));

    const { store: again, logger } = await openAt(dir);
    expect(logger.warnings().some((w) => w.includes('corrupt line'))).toBe(true);
    expect(logger.warnings().some((w) => w.includes('rebuilt from 3 job file'))).toBe(true);
    expect(await corruptFiles(dir)).toHaveLength(1);
    expect(again.count()).toBe(3);
    expect((await again.listJobs({ tenant_id: 'default', limit: 10 })).jobs.map((j) => j.job_id)).toEqual([jobs[1]?.job_id, jobs[0]?.job_id]);
    expect((await again.listJobsByStatus(['running'])).map((j) => j.job_id)).toEqual([jobs[0]?.job_id]);
  });

  it('sets a torn event line aside and keeps appending cleanly', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const job = makeJob();
    await store.createJob(job);
    await store.appendEvent({ job_id: job.job_id, event: 'job.queued', ...info });
    await store.close();
    await fsp.appendFile(eventsFilePath(dir, job.job_id), '{"seq":99,"job_');

    const { store: again, logger } = await openAt(dir);
    expect((await again.listEvents(job.job_id)).map((e) => e.event)).toEqual(['job.queued']);
    expect(logger.warnings().some((w) => w.includes('event log: torn last line'))).toBe(true);
    expect(await corruptFiles(dir)).toHaveLength(1);
    await again.appendEvent({ job_id: job.job_id, event: 'job.running', ...info });
    await again.flush();
    expect((await again.listEvents(job.job_id)).map((e) => e.event)).toEqual(['job.queued', 'job.running']);
    const text = await fsp.readFile(eventsFilePath(dir, job.job_id), 'utf8');
    expect(text.trim().split('\n').map((l) => (JSON.parse(l) as { event: string }).event)).toEqual(['job.queued', 'job.running']);
  });

  it('copies an event log with a corrupt middle line aside before repairing it', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const job = makeJob();
    await store.createJob(job);
    await store.appendEvent({ job_id: job.job_id, event: 'a', ...info });
    await store.appendEvent({ job_id: job.job_id, event: 'b', ...info });
    await store.close();
    const file = eventsFilePath(dir, job.job_id);
    const [l1, l2] = (await fsp.readFile(file, 'utf8')).trim().split('\n');
    const damaged = `${l1}\n{not json}\n${l2}\n`;
    await fsp.writeFile(file, damaged);
    const { store: again, logger } = await openAt(dir);
    expect((await again.listEvents(job.job_id)).map((e) => e.event)).toEqual(['a', 'b']);
    expect(logger.warnings().some((w) => w.includes('1 corrupt line'))).toBe(true);
    const aside = await corruptFiles(dir);
    expect(await fsp.readFile(path.join(dir, 'corrupt', aside[0] ?? ''), 'utf8')).toBe(damaged);
  });

  it('replays a journal left by a crash and sets its torn tail aside', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const existing = makeJob();
    await store.createJob(existing);
    await store.close();

    // What a crash leaves: acknowledged entries not yet (fully) in their own files, then a torn write.
    const lost = makeJob({ tenant_id: 'acme' });
    const running = { ...existing, status: 'running' as const, updated_at: '2031-01-01T00:00:00.000Z' };
    const ev = { seq: 5000, job_id: lost.job_id, event: 'job.queued', recorded_at: '2031-01-01T00:00:00.000Z', ...info };
    const idem = { tenant_id: 'acme', kind: 'benchmark', key: 'k', fingerprint: 'f', job_id: lost.job_id, created_at: new Date().toISOString() };
    const journal = [
      JSON.stringify({ t: 'job', rec: lost, ord: 7, idem }),
      JSON.stringify({ t: 'job', rec: running, ord: 1 }),
      JSON.stringify({ t: 'ev', ev }),
      '{"t":"job","rec":{"job_id":"torn',
    ].join('\n');
    await fsp.writeFile(journalFilePath(dir, 3), journal);

    const { store: again, logger } = await openAt(dir);
    expect(again.count()).toBe(2);
    expect(await again.getJob(lost.job_id)).toEqual(lost);
    expect((await again.getJob(existing.job_id))?.status).toBe('running');
    expect((await again.listEvents(lost.job_id)).map((e) => e.seq)).toEqual([5000]);
    expect((await again.getIdempotency('acme', 'benchmark', 'k'))?.job_id).toBe(lost.job_id);
    expect(logger.warnings().some((w) => w.includes('journal 3: torn last line'))).toBe(true);
    expect(logger.lines.some((l) => l.msg.includes('replayed 3 journal entries'))).toBe(true);
    expect(await fsp.readFile(path.join(dir, 'corrupt', (await corruptFiles(dir))[0] ?? ''), 'utf8')).toBe('{"t":"job","rec":{"job_id":"torn');
    // The journal is folded into the files and removed; seq continues above what it held.
    expect(await fsp.readdir(path.join(dir, 'journal'))).toEqual([expect.stringMatching(/^00000004\.jsonl$/)]);
    const next = await again.appendEvent({ job_id: lost.job_id, event: 'job.running', ...info });
    expect(next.seq).toBeGreaterThan(5000);
    // New writes after replay do not collide with replayed ords.
    const fresh = makeJob({ tenant_id: 'acme' });
    await again.createJob(fresh);
    expect((await again.listJobs({ tenant_id: 'acme', limit: 5 })).jobs.map((j) => j.job_id)).toEqual([fresh.job_id, lost.job_id]);
  });

  it('rewrites a job file in place, and a crash in the middle of that is repaired from the journal', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const job = makeJob();
    await store.createJob(job);
    await store.flush();
    const file = jobFilePath(dir, job.job_id);
    const inode = (await fsp.stat(file)).ino;
    await store.updateJob(job.job_id, { status: 'running', started_at: '2031-01-01T00:00:00.000Z' });
    await store.flush();
    // The same file (no temp file renamed over it), holding the new version; no temp files left.
    expect((await fsp.stat(file)).ino).toBe(inode);
    expect(JSON.parse(await fsp.readFile(file, 'utf8'))).toMatchObject({ status: 'running' });
    expect((await fsp.readdir(path.dirname(file))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await store.close();

    // What a crash while rewriting leaves: the file cut short, and the journal entry of the version being written.
    const running = JSON.parse(await fsp.readFile(file, 'utf8')) as typeof job;
    const succeeded = { ...running, status: 'succeeded' as const, updated_at: '2031-01-01T00:01:00.000Z' };
    await fsp.writeFile(file, '{\n\t"job_id": "');
    await fsp.writeFile(journalFilePath(dir, 9), `${JSON.stringify({ t: 'job', rec: succeeded, ord: 1 })}\n`);

    const { store: again, logger } = await openAt(dir);
    expect(await again.getJob(job.job_id)).toEqual(succeeded);
    expect(JSON.parse(await fsp.readFile(file, 'utf8'))).toEqual(succeeded);
    expect(await corruptFiles(dir)).toEqual([]);
    expect(logger.warnings()).toEqual([]);
  });

  it('recovers the seq floor when store-meta.json is corrupt', async () => {
    const dir = await freshDir();
    const { store } = await openAt(dir);
    const job = makeJob();
    await store.createJob(job);
    let last = 0;
    for (let i = 0; i < 5; i++) last = (await store.appendEvent({ job_id: job.job_id, event: `e${i}`, ...info })).seq;
    await store.close();
    await fsp.writeFile(path.join(dir, 'store-meta.json'), '{"seq_reserved": 10');

    const { store: again, logger } = await openAt(dir);
    expect(logger.warnings().some((w) => w.includes('store-meta.json is unreadable'))).toBe(true);
    expect(logger.warnings().some((w) => w.includes(`continuing after ${last}`))).toBe(true);
    expect((await again.appendEvent({ job_id: job.job_id, event: 'after', ...info })).seq).toBeGreaterThan(last);
  });
});

describe('crash (SIGKILL) mid-flight', () => {
  it('keeps every acknowledged job and event after the writer process is killed', { timeout: 60_000 }, async () => {
    const { build } = await import('esbuild');
    const dir = await freshDir();
    const work = await freshDir();
    const entry = path.join(work, 'child.ts');
    const storeModule = path.join(import.meta.dirname, '..', '..', 'src-main', 'store', 'job-store.ts');
    await fsp.writeFile(
      entry,
      `import { openJobStore } from ${JSON.stringify(storeModule)};
const store = await openJobStore({ dataDir: process.argv[2], checkpointBytes: 16384, logger: { info() {}, warn() {} } });
let acked = 0;
const one = async (i) => {
  const id = 'crash-' + i;
  const now = new Date().toISOString();
  await store.createJob({ job_id: id, tenant_id: 'default', kind: 'benchmark', status: 'queued', message: 'accepted', created_at: now,
    started_at: null, finished_at: null, updated_at: now, request: { i, backend_type: 'llmserver', backend_url: 'http://127.0.0.1:11434', model: 'llama3', question: 'q', agent: 'builtin', marketplace: false }, progress: null, result: null, error: null, error_code: null, resources: null });
  const ev = await store.appendEvent({ job_id: id, event: 'job.queued', status: 'info', message: null, duration_ms: null, error_type: null, labels: {} });
  process.stdout.write('ack ' + id + ' ' + ev.seq + '\\n');
  if (++acked === 150) process.kill(process.pid, 'SIGKILL');
};
for (let i = 0; i < 400; i++) void one(i);
`,
    );
    const outfile = path.join(work, 'child.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'error',
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    const child = spawn(process.execPath, [outfile, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    const acked = out
      .split('\n')
      .filter((l) => l.startsWith('ack '))
      .map((l) => l.split(' '));
    expect(acked.length).toBeGreaterThanOrEqual(150);

    const { store, logger } = await openAt(dir);
    expect(logger.warnings().some((w) => w.includes('which is no longer running'))).toBe(true);
    // The kill left a journal behind (no clean close), and open folded it back in.
    expect(logger.lines.some((l) => /^replayed \d+ journal entr/.test(l.msg))).toBe(true);
    for (const [, id, seq] of acked) {
      expect((await store.getJob(id ?? ''))?.job_id).toBe(id);
      expect((await store.listEvents(id ?? '')).map((e) => e.seq)).toContain(Number(seq));
    }
    const maxAcked = Math.max(...acked.map((a) => Number(a[2])));
    const job = acked[0]?.[1] ?? '';
    expect((await store.appendEvent({ job_id: job, event: 'after', ...info })).seq).toBeGreaterThan(maxAcked);
  });
});
