import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { toLogger } from '../../src-main/app/logger';
import { redactUrlCredentials } from '../../src-main/engine/redact';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { waitFor } from '../helpers/bench';
import { getEvents, startHarness, tempDir, waitForEnd, type Harness } from '../workflows/harness';

/**
 * Issue 14 item 3: a password inside `backend_url` is never served, stored in the job record or
 * the journal, or put in events; it lives in a 0600 file under secrets/ and still reaches the
 * backend, after a restart too. The fake Ollama plays a proxy that wants those credentials.
 */

const SECRET = 'S3cr3t-pa55word-7f1c';
const basic = `Basic ${Buffer.from(`vastai:${SECRET}`).toString('base64')}`;

let ollama: FakeOllama;
let url: string;
beforeAll(async () => {
  ollama = await startFakeOllama({ knobs: { proxyToken: SECRET } });
  url = `http://vastai:${SECRET}@127.0.0.1:${new URL(ollama.url).port}`;
});
afterAll(async () => {
  await ollama.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

/** Every file of the data dir except secrets/ must be free of the password. */
async function expectDataDirClean(dir: string): Promise<void> {
  const files = (await filesUnder(dir)).filter((f) => !f.startsWith(path.join(dir, 'secrets')));
  expect(files.some((f) => f.includes('journal'))).toBe(true);
  for (const file of files) expect(await readFile(file, 'latin1'), file).not.toContain(SECRET);
}

async function sseText(h: Harness, id: string): Promise<string> {
  const res = await h.bd.app.inject({ method: 'GET', url: API_PATHS.jobEvents(id), headers: { accept: 'text/event-stream' } });
  expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
  return res.body;
}

describe('credentials inside backend_url', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ reuse: { ollama } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('are masked in every response and on disk, and still reach the backend', async () => {
    const before = ollama.callsTo('/api/tags').length;
    const res = await h.post('/v1/jobs/llm-instance', { backend_url: url });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = String(res.body.job_id);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');

    // The backend saw the real credentials.
    const tags = ollama.callsTo('/api/tags').slice(before);
    expect(tags.length).toBeGreaterThan(0);
    expect(tags.every((c) => c.headers.authorization === basic)).toBe(true);

    // Nothing served carries the password; the record shows the masked URL.
    expect(job.request).toMatchObject({ backend_url: `http://vastai:***@127.0.0.1:${new URL(ollama.url).port}` });
    const served = [
      await h.get(API_PATHS.job(id)),
      await h.get(API_PATHS.jobs),
      await h.get(API_PATHS.jobEvents(id)),
      await h.get(`${API_PATHS.metricsSummary}?job_id=${id}`),
    ];
    for (const r of served) expect(r.status).toBe(200);
    expect(JSON.stringify(served)).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(await sseText(h, id)).not.toContain(SECRET);

    await expectDataDirClean(h.dir);
    // The job has ended: its credentials file is gone too.
    await waitFor(async () => (await readdir(path.join(h.dir, 'secrets')).catch(() => [])).length === 0, 'the credentials file to be deleted');
  });

  it('are masked in error responses', async () => {
    const bad = await h.post('/v1/jobs/llm-instance', { backend_url: `${url}/?q=1` });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad)).not.toContain(SECRET);
    expect(JSON.stringify(bad.body)).toContain('vastai:***@');
    const listing = await h.get(`/v1/llm/models?backend_url=${encodeURIComponent(`${url}?x=1`)}`);
    expect(listing.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(listing)).not.toContain(SECRET);
  });

  it('a job that fails at the backend does not leak them in its error or events', async () => {
    const wrong = url.replace(SECRET, `${SECRET}-wrong`);
    const id = String((await h.post('/v1/jobs/llm-instance', { backend_url: wrong })).body.job_id);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(JSON.stringify({ job, events })).not.toContain(SECRET);
  });
});

describe('after a restart', () => {
  it('a queued job still runs with its credentials, which are kept in a 0600 file until it ends', async () => {
    const dir = await tempDir();
    // One job at a time; the first hangs in warmup so the second stays queued across the restart.
    ollama.setKnobs({ loadLatencyMs: 60_000 });
    const env = { BENCHDESK_CONCURRENCY: '1' };
    const first = await startHarness({ reuse: { ollama }, dataDir: dir, env, start: true });
    let h2: Harness | undefined;
    try {
      const blocker = String((await first.post('/v1/jobs/llm-instance', { backend_url: url, model: 'llama3.1:8b' })).body.job_id);
      await waitFor(async () => (await first.get(API_PATHS.job(blocker))).body.status === 'running', 'the blocker to run');
      const queued = String((await first.post('/v1/jobs/llm-instance', { backend_url: url })).body.job_id);
      expect((await first.get(API_PATHS.job(queued))).body.status).toBe('queued');

      const secretFiles = await readdir(path.join(dir, 'secrets'));
      expect(secretFiles.length).toBe(2);
      for (const name of secretFiles) {
        const file = path.join(dir, 'secrets', name);
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        expect(await readFile(file, 'utf8')).toContain(SECRET);
      }
      expect((await stat(path.join(dir, 'secrets'))).mode & 0o777).toBe(0o700);
      await expectDataDirClean(dir);
      await first.closeProduct();

      ollama.setKnobs({ loadLatencyMs: 0 });
      const before = ollama.callsTo('/api/tags').length;
      h2 = await startHarness({ reuse: { ollama }, dataDir: dir, env, start: true });
      const { job } = await waitForEnd(h2, queued);
      expect(job.status, job.error ?? '').toBe('succeeded');
      const tags = ollama.callsTo('/api/tags').slice(before);
      expect(tags.length).toBeGreaterThan(0);
      expect(tags.every((c) => c.headers.authorization === basic)).toBe(true);
      expect(JSON.stringify(await getEvents(h2, queued))).not.toContain(SECRET);
      await expectDataDirClean(dir);
      await waitFor(async () => (await readdir(path.join(dir, 'secrets'))).length === 0, 'the credentials files to be deleted');
    } finally {
      ollama.setKnobs({ loadLatencyMs: 0 });
      await first.close();
      await h2?.close();
    }
  });
});

describe('logs and free text', () => {
  it('URL passwords are masked in text and in log lines', () => {
    expect(redactUrlCredentials(`connect to http://user:${SECRET}@host:1/x failed`)).toBe('connect to http://user:***@host:1/x failed');
    expect(redactUrlCredentials(`"https://${SECRET}@host"`)).toBe('"https://***@host"');
    expect(redactUrlCredentials(`http://u:p@${SECRET}@host/`)).toBe('http://u:***@host/');
    expect(redactUrlCredentials(`invalid backend_url "user:${SECRET}@host": nope`)).toBe('invalid backend_url "user:***@host": nope');
    expect(redactUrlCredentials('mail me at someone@example.com')).toBe('mail me at someone@example.com');

    let written = '';
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void ((written += chunk.toString()), done()) });
    const log = toLogger(pino({ level: 'info' }, sink));
    log.error(`request to http://vastai:${SECRET}@h failed`, { url: `http://vastai:${SECRET}@h`, nested: { list: [`http://a:${SECRET}@b`] } });
    expect(written).toContain('vastai:***@h');
    expect(written).not.toContain(SECRET);
  });
});
