import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

/** The built headless server, started as its own process (what a user runs), plus helpers. */
export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const SERVER_JS = path.join(ROOT, 'dist', 'main', 'server.js');
export const TOKEN = 'bench-token-0123456789';

export type Child = { child: ChildProcess; pid: number; url: string; rssMB(): number | undefined; stop(): Promise<void> };

export function rssMBOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function wrapChild(child: ChildProcess, url: string): Child {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid ?? 0,
    url,
    rssMB: () => rssMBOf(child.pid ?? 0),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits for a line on stdout matching `re` and returns its first group. */
export function waitForLine(child: ChildProcess, re: RegExp, what: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${err.slice(-1000)}`)), timeoutMs);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = re.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it was ready: ${err.slice(-1000)}`));
    });
  });
}

/** The environment a spawned headless server gets: a fresh data dir, loopback on a free port, one token. */
export function serverEnv(dataDir: string, token: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    BENCHDESK_DATA_DIR: dataDir,
    BENCHDESK_HOST: '127.0.0.1',
    BENCHDESK_PORT: '0',
    SERVICE_API_TOKENS: `default:${token}`,
    BENCHDESK_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export async function startBenchdeskServer(dataDir: string, env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Child> {
  if (!fs.existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} is missing: run \`node scripts/build.mjs\` first`);
  const child = spawn(process.execPath, [...nodeArgs, SERVER_JS], {
    cwd: ROOT,
    env: serverEnv(dataDir, TOKEN, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await waitForLine(child, /listening on (http:\/\/\S+)/, 'benchdesk');
  child.stdout?.resume();
  child.stderr?.resume();
  return wrapChild(child, url);
}

/** The bare node:http reference servers (see bare-server.ts), in their own process like benchdesk. */
export async function startBareServer(mode: 'static' | 'group-commit', arg: string): Promise<Child> {
  const child = spawn(process.execPath, [process.argv[1] ?? '', '--bare', mode, arg], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await waitForLine(child, /bare listening (\d+)/, `bare ${mode} server`);
  child.stdout?.resume();
  return wrapChild(child, `http://127.0.0.1:${port}`);
}

/** A TCP server that accepts and never answers: llm-instance jobs against it stay running. */
export async function startSilentBackend(): Promise<{ url: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A minimal llmserver that answers at once: llm-instance jobs against it succeed quickly. */
export async function startQuickBackend(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const body = req.url?.startsWith('/api/tags') ? '{"models":[]}' : req.url?.startsWith('/api/ps') ? '{"models":[]}' : '{"version":"0.0.0-bench"}';
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close: () => server.close() };
}

export type Reply = { status: number; body: string; contentType: string };

/** One request with a bearer token (the bench's unless given); network errors reject. */
export function call(agent: http.Agent, base: string, method: string, urlPath: string, body?: unknown, token = TOKEN): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      `${base}${urlPath}`,
      {
        method,
        agent,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), contentType: String(res.headers['content-type'] ?? '') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** wrk on PATH, installed with apt-get when missing and we are root; undefined (with why) otherwise. */
export function ensureWrk(): { path: string } | { missing: string } {
  const which = () => spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  let found = which();
  if (found) return { path: found };
  if (process.getuid?.() === 0) {
    console.log('wrk is not installed: installing it with apt-get (root)…');
    spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    found = which();
    if (found) return { path: found };
  }
  return {
    missing:
      'wrk is not installed (`apt-get install -y wrk`, or `brew install wrk`). The HTTP figures need it: a Node load generator tops out near 28k req/s on 2 cores and would make benchdesk look faster than bare Node.',
  };
}
