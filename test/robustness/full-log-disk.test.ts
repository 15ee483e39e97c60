import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogDestination } from '../../src-main/app/log-destination';
import { tempDataDir } from '../helpers/store';
import { request, startServer, startSilentBackend, type ServerProcess } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/** A full log disk must never stop the API: log lines that cannot be written are dropped. */

function errno(code: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: simulated`);
  err.code = code;
  return err;
}

describe('the log destination', () => {
  it('drops and counts lines the sink refuses (ENOSPC, EIO, EPIPE) instead of throwing', () => {
    const written: string[] = [];
    let failWith: string | undefined;
    const dest = createLogDestination(99, (_fd, buf, off, len) => {
      if (failWith) throw errno(failWith);
      written.push(buf.subarray(off, off + len).toString());
      return len;
    });
    expect(dest.write('one\n')).toBe(true);
    for (const code of ['ENOSPC', 'EIO', 'EPIPE']) {
      failWith = code;
      expect(() => dest.write(`${code}\n`)).not.toThrow();
    }
    expect(dest.dropped).toBe(3);
    expect(dest.lastError?.code).toBe('EPIPE');
    failWith = undefined;
    dest.write('two\n');
    expect(written).toEqual(['one\n', 'two\n']);
    expect(dest.lastError).toBeUndefined();
  });

  it('finishes short writes, and gives up on a pipe that stays full instead of blocking', () => {
    const chunks: string[] = [];
    const short = createLogDestination(99, (_fd, buf, off, len) => {
      const n = Math.min(3, len);
      chunks.push(buf.subarray(off, off + n).toString());
      return n;
    });
    short.write('abcdefgh\n');
    expect(chunks.join('')).toBe('abcdefgh\n');

    let calls = 0;
    const stuck = createLogDestination(99, () => {
      calls++;
      throw errno('EAGAIN');
    });
    stuck.write('x\n');
    expect(stuck.dropped).toBe(1);
    expect(calls).toBeLessThan(10);
  });
});

const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill('SIGKILL');
});

describe.runIf(process.platform === 'linux' && fs.existsSync('/dev/full'))('the server with its log on a full disk', () => {
  it('keeps answering with stdout on /dev/full (every write ENOSPC)', async () => {
    const dir = await tempDataDir('benchdesk-fulllog-');
    const backend = await startSilentBackend();
    const full = fs.openSync('/dev/full', 'w');
    try {
      // Info level, so every request and job writes log lines that all fail.
      // The port is the OS's choice (BENCHDESK_PORT=0); startServer reads it from /proc, stdout being /dev/full.
      const server = await startServer(dir, { stdout: full, env: { BENCHDESK_LOG_LEVEL: 'info' } });
      servers.push(server);
      const agent = new http.Agent({ keepAlive: true });
      for (let i = 0; i < 20; i++) {
        const res = await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
        expect(res.status).toBe(202);
        expect((await request(agent, server.url, 'GET', `/v1/jobs/${String(res.body.job_id)}`)).status).toBe(200);
      }
      expect((await request(agent, server.url, 'GET', '/v1/jobs/nope')).status).toBe(404);
      expect((await request(agent, server.url, 'GET', '/healthz')).body.status).toBe('ok');
      agent.destroy();
      expect(server.child.exitCode).toBeNull();
    } finally {
      for (const s of servers.splice(0)) await s.kill('SIGKILL');
      fs.closeSync(full);
      await backend.close();
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
