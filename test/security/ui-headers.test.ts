import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenchdesk, type Benchdesk } from '../../src-main/composition/start';

/** The browser-mode UI under /ui/ must not be framed by another page (clickjacking). */

let bd: Benchdesk;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-ui-headers-'));
  const ui = path.join(dir, 'ui');
  await mkdir(ui);
  await writeFile(path.join(ui, 'index.html'), '<!doctype html><title>benchdesk</title>');
  await writeFile(path.join(ui, 'app.js'), 'console.log(1)');
  bd = await createBenchdesk({ dataDir: path.join(dir, 'data'), env: { SERVICE_API_AUTH_DISABLED: '1', BENCHDESK_SHUTDOWN_GRACE_S: '0' }, logger: false, port: 0, uiDir: ui });
});
afterAll(async () => {
  await bd.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the /ui/ pages', () => {
  for (const url of ['/ui/', '/ui/index.html', '/ui/app.js', '/ui']) {
    it(`${url} forbids framing: CSP frame-ancestors 'none' and X-Frame-Options: DENY`, async () => {
      const res = await bd.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeLessThan(400);
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  }
});
