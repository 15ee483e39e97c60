import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request, startServer, startSilentBackend, type ServerProcess } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * The same disk-full behaviour as disk-full-api.test.ts, on a real 4 MB tmpfs (real ENOSPC from
 * the kernel, the log file on the same full disk), where mounting is allowed (root on Linux).
 * Elsewhere it is skipped, and the injected-failure tests cover the behaviour.
 */
const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'benchdesk-tmpfs-'));
const mounted =
  process.platform === 'linux' && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' }).status === 0;
if (!mounted) console.log(`disk-full-tmpfs: skipped, cannot mount a tmpfs here (needs root on Linux); the injected-failure tests cover this`);

const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill('SIGKILL');
  if (mounted) spawnSync('umount', [mountPoint], { stdio: 'ignore' });
  await fsp.rm(mountPoint, { recursive: true, force: true });
});

describe.runIf(mounted)('a real full disk (tmpfs)', () => {
  it('507s and degraded health while full, only acknowledged jobs listed, recovery without a restart, nothing lost after a kill', async () => {
    const dataDir = path.join(mountPoint, 'data');
    const filler = path.join(mountPoint, 'filler');
    // Room to free later: 1.5 MB that is not the store's.
    await fsp.writeFile(filler, Buffer.alloc(1536 * 1024, 1));
    const log = fs.openSync(path.join(mountPoint, 'server.log'), 'a');
    const backend = await startSilentBackend();
    try {
      // The port is the OS's choice (BENCHDESK_PORT=0); startServer reads it from /proc, stdout being the log file.
      const server = await startServer(dataDir, { stdout: log, env: { BENCHDESK_LOG_LEVEL: 'info' } });
      servers.push(server);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const accepted: string[] = [];
      let refused: Record<string, unknown> | undefined;
      for (let i = 0; i < 20_000 && !refused; i++) {
        const res = await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
        if (res.status === 202) accepted.push(String(res.body.job_id));
        else {
          expect(res.status, JSON.stringify(res.body)).toBe(507);
          expect(res.contentType).toContain('application/problem+json');
          refused = res.body;
        }
      }
      expect(refused).toMatchObject({ code: 'insufficient_storage', status: 507 });
      expect(String(refused?.detail)).toContain(dataDir);
      // More refusals while full, and the API keeps answering (the log file is on the full disk too).
      expect((await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url })).status).toBe(507);
      const health = await request(agent, server.url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'degraded' });

      const listed = new Set<string>();
      let cursor = '';
      do {
        const page = await request(agent, server.url, 'GET', `/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        for (const j of page.body.jobs as { job_id: string }[]) listed.add(j.job_id);
        cursor = typeof page.body.next_cursor === 'string' ? page.body.next_cursor : '';
      } while (cursor);
      expect(listed.size).toBe(accepted.length);

      await fsp.rm(filler);
      for (let i = 0; i < 100 && (await request(agent, server.url, 'GET', '/healthz')).body.status !== 'ok'; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await request(agent, server.url, 'GET', '/healthz')).body.status).toBe('ok');
      const again = await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
      expect(again.status).toBe(202);
      accepted.push(String(again.body.job_id));
      agent.destroy();

      await server.kill('SIGKILL');
      const restarted = await startServer(dataDir, { stdout: log });
      servers.push(restarted);
      const agent2 = new http.Agent({ keepAlive: true });
      for (const id of accepted) expect((await request(agent2, restarted.url, 'GET', `/v1/jobs/${id}`)).status).toBe(200);
      agent2.destroy();
      console.log(`disk-full-tmpfs: ${accepted.length} jobs accepted on a 4 MB tmpfs before the first 507; all kept across SIGKILL`);
    } finally {
      fs.closeSync(log);
      await backend.close();
    }
  }, 90_000);
});
