import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsResponseSchema } from '../../shared';
import { SEALED_BACKEND_URL_FILE } from '../../src-main/app/settings';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { startHarness, waitForEnd, type Harness } from '../workflows/harness';

/**
 * The saved default backend (`default_backend_url`) is sealed like a job's credentials: its
 * password never reaches settings.json or any answer, to any tenant; the app's own tenant still
 * reaches the backend with it when it names the saved URL as shown.
 */

const SECRET = 'D3fault-pa55word-91ab';

let ollama: FakeOllama;
let url: string;
let masked: string;
let h: Harness;
beforeAll(async () => {
  ollama = await startFakeOllama({ knobs: { proxyToken: SECRET } });
  const port = new URL(ollama.url).port;
  url = `http://vastai:${SECRET}@127.0.0.1:${port}`;
  masked = `http://vastai:***@127.0.0.1:${port}`;
  h = await startHarness({ reuse: { ollama } });
});
afterAll(async () => {
  await h.close();
  await ollama.close();
});

async function as(tenant: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await h.bd.app.inject({ method, url, headers: { 'x-tenant-id': tenant }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: res.statusCode, text: res.body, body: JSON.parse(res.body) as Record<string, unknown> };
}

describe('default_backend_url with credentials', () => {
  it('is stored masked, served masked to every tenant, and its password sealed in a 0600 file', async () => {
    const saved = await as('default', 'POST', '/v1/settings', { default_backend_url: url });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.text).not.toContain(SECRET);
    expect(SettingsResponseSchema.parse(saved.body).settings.default_backend_url).toBe(masked);

    const settingsJson = await readFile(path.join(h.dir, 'settings.json'), 'utf8');
    expect(settingsJson).not.toContain(SECRET);
    expect(JSON.parse(settingsJson)).toMatchObject({ default_backend_url: masked });
    const sealed = path.join(h.dir, SEALED_BACKEND_URL_FILE);
    expect(await readFile(sealed, 'utf8')).toContain(SECRET);
    expect((await stat(sealed)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(sealed))).mode & 0o777).toBe(0o700);

    for (const tenant of ['default', 'other']) {
      const read = await as(tenant, 'GET', '/v1/settings');
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(SECRET);
      expect(SettingsResponseSchema.parse(read.body).settings.default_backend_url).toBe(masked);
    }
  });

  it('the app tenant reaches the backend with the sealed password when it names the saved URL as shown', async () => {
    const before = ollama.callsTo('/api/tags').length;
    const listed = await as('default', 'GET', `/v1/llm/models?backend_url=${encodeURIComponent(masked)}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).not.toContain(SECRET);
    const basic = `Basic ${Buffer.from(`vastai:${SECRET}`).toString('base64')}`;
    expect(ollama.callsTo('/api/tags').slice(before).every((c) => c.headers.authorization === basic)).toBe(true);

    const job = await as('default', 'POST', '/v1/jobs/llm-instance', { backend_url: masked });
    expect(job.status, job.text).toBe(202);
    const { job: ended } = await waitForEnd(h, String(job.body.job_id));
    expect(ended.status, ended.error ?? '').toBe('succeeded');
    expect(JSON.stringify(ended)).not.toContain(SECRET);
  });

  it('another tenant naming the masked URL does not get the password', async () => {
    const listed = await as('other', 'GET', `/v1/llm/models?backend_url=${encodeURIComponent(masked)}`);
    expect(listed.status).toBe(502);
    expect(listed.text).not.toContain(SECRET);
  });

  it('saving the URL as shown keeps the password; a different hidden password is refused; clearing it removes the sealed file', async () => {
    const same = await as('default', 'POST', '/v1/settings', { default_backend_url: masked });
    expect(same.status).toBe(200);
    expect(same.body.changed).toEqual([]);
    const other = await as('default', 'POST', '/v1/settings', { default_backend_url: 'http://vastai:***@127.0.0.1:9' });
    expect(other.status).toBe(422);
    expect(JSON.stringify(other.body.errors)).toContain('type it again');

    const cleared = await as('default', 'POST', '/v1/settings', { default_backend_url: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.changed).toEqual(['default_backend_url']);
    const secrets = await readdir(path.join(h.dir, 'secrets'));
    expect(secrets.filter((f) => f.startsWith('settings-'))).toEqual([]);
  });
});
