import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/**
 * Prism (Stoplight) in proxy mode: requests go through it to the real server, and it reports in
 * an `sl-violations` header where a request or a response disagrees with the OpenAPI document.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const PRISM_BIN = process.env.PRISM_BIN ?? path.join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

export type Violation = { location: string[]; severity: string; code?: string | number; message: string };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export type Prism = { url: string; output(): string; close(): Promise<void> };

export async function startPrismProxy(specFile: string, upstream: string, timeoutMs = 30_000): Promise<Prism> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [PRISM_BIN, 'proxy', specFile, upstream, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => void (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => void (output += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited: ${output}`);
    if (/Prism is listening/i.test(output)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not start in ${timeoutMs} ms: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The violations Prism reported for one answer. */
export function violationsOf(headers: Headers): Violation[] {
  const raw = headers.get('sl-violations');
  return raw ? (JSON.parse(raw) as Violation[]) : [];
}
