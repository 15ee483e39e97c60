import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverEnv } from '../../src-main/bench/processes';
import { TOKEN, buildServer, startServer } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/** The headless server process as `npm run serve` runs it: start-up failures and Ctrl-C. */

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-serve-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('benchdesk serve as a process', () => {
  it('says in one line that the port is taken, and exits 1 without a stack trace', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const child = spawn(process.execPath, [await buildServer()], { env: serverEnv(tempDir(), TOKEN, { BENCHDESK_PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(`benchdesk: port ${port} is already in use (another benchdesk, or another program): stop it, or pick another port with BENCHDESK_PORT or --port\n`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('stops cleanly on Ctrl-C even when the SIGINT comes twice (the terminal and npm each send one)', async () => {
    const server = await startServer(tempDir(), { env: { BENCHDESK_LOG_LEVEL: 'info' } });
    let stdout = '';
    let again = false;
    server.child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The second one while the first is being handled (signals sent back to back merge into one).
      if (!again && stdout.includes('"msg":"shutting down"')) {
        again = true;
        server.child.kill('SIGINT');
      }
    });
    server.child.kill('SIGINT');
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(again).toBe(true);
    expect(stdout).toMatch(/^benchdesk stopped\.$/m);
  });
});
