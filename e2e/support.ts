import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const RESULTS_DIR = path.join(ROOT, 'test-results');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Fails with the build command to run, instead of a confusing ENOENT later. */
export function requireBuilt(files: readonly string[]): void {
  const missing = files.filter((f) => !existsSync(path.join(ROOT, f)));
  if (missing.length > 0) {
    throw new Error(`build output missing: ${missing.join(', ')}. Run \`node scripts/build.mjs && npx vite build\` (npm test does) first.`);
  }
}

export type ServerProcess = { child: ChildProcess; baseUrl: string; output(): string; stop(): Promise<void> };

/** Starts `node dist/main/server.js` and resolves once GET /healthz answers 200. */
export async function startServer(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  const port = Number(env.BENCHDESK_PORT);
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main', 'server.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | null = null;
  child.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`;
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`server ${exited} before it was healthy:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server not healthy within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, baseUrl, output: () => output, stop };
}
