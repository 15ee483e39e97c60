import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { call, serverEnv } from '../../src-main/bench/processes';
import { trackChild } from './children';

/**
 * The headless server (src-main/server.ts) as a real child process, for tests that SIGKILL it or
 * load it over sockets. Bundled here like scripts/build.mjs does, into node_modules/.cache so npm
 * packages resolve; tests do not depend on a prior `npm run build`.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const OUT_DIR = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-tests', `server-${process.pid}`);

let built: Promise<string> | undefined;
export function buildServer(): Promise<string> {
  // Both entries, as scripts/build.mjs builds them: server.js (the Node check and process-wide
  // settings) loads server-app.js next to it.
  const src = (name: string) => path.join(ROOT, 'src-main', `${name}.ts`);
  const entryPoints: Record<string, string> = { server: src('server') };
  if (fs.existsSync(src('server-app'))) entryPoints['server-app'] = src('server-app');
  built ??= build({
    entryPoints,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    packages: 'external',
    outdir: OUT_DIR,
    logLevel: 'error',
  }).then(() => path.join(OUT_DIR, 'server.js'));
  return built;
}

export const TOKEN = 'robustness-token';

export type ServerProcess = {
  child: ChildProcess;
  pid: number;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resident set size (KiB) from /proc, or undefined where there is none. */
  rssKiB(): number | undefined;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

/**
 * The TCP port a process listens on, read from /proc (Linux): for a server whose stdout is not
 * ours to read (a file on a full disk, /dev/full), which listens on a port the OS chose.
 */
export function listeningPortOf(pid: number): number | undefined {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      fs
        .readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          } catch {
            return undefined;
          }
        })
        .filter((inode): inode is string => inode !== undefined),
    );
  } catch {
    return undefined;
  }
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; the inode is the 10th column.
      if (cols[3] === '0A' && inodes.has(cols[9] ?? '')) return parseInt((cols[1] ?? '').split(':')[1] ?? '', 16);
    }
  }
  return undefined;
}

export async function startServer(dataDir: string, options: { stdout?: 'pipe' | 'ignore' | number; env?: NodeJS.ProcessEnv } = {}): Promise<ServerProcess> {
  const entry = await buildServer();
  const child = trackChild(
    spawn(process.execPath, [entry], {
      cwd: ROOT,
      // Jobs against a silent backend never finish: do not wait for them on SIGTERM.
      env: serverEnv(dataDir, TOKEN, { BENCHDESK_SHUTDOWN_GRACE_S: '0', ...options.env }),
      // The port comes from the "listening on" line on stdout, or from /proc when stdout goes elsewhere.
      stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
    }),
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 15 s; stderr: ${stderr.slice(-2000)}`)), 15_000);
    let out = '';
    if (options.stdout !== undefined && options.stdout !== 'pipe') {
      // stdout is not ours to read: find the port the OS gave it, then wait for /healthz.
      const poll = () => {
        const port = child.pid === undefined ? undefined : listeningPortOf(child.pid);
        if (port === undefined) return void setTimeout(poll, 50);
        void fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => {
            clearTimeout(timer);
            resolve(`http://127.0.0.1:${port}`);
          },
          () => setTimeout(poll, 50),
        );
      };
      poll();
    } else {
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    }
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening; stderr: ${stderr.slice(-2000)}`));
    });
  });
  const pid = child.pid ?? 0;
  return {
    child,
    pid,
    url,
    exited,
    rssKiB: () => {
      try {
        const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m?.[1] ? Number(m[1]) : undefined;
      } catch {
        return undefined;
      }
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** A TCP server that accepts connections and never answers: jobs against it stay running. */
export async function startSilentBackend(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export type JsonReply = { status: number; body: Record<string, unknown>; contentType: string };

/** One request with the test token, its body parsed as JSON; network errors reject (a killed server). */
export async function request(agent: http.Agent, base: string, method: string, urlPath: string, body?: unknown): Promise<JsonReply> {
  const reply = await call(agent, base, method, urlPath, body, TOKEN);
  let parsed: Record<string, unknown>;
  try {
    parsed = reply.body ? (JSON.parse(reply.body) as Record<string, unknown>) : {};
  } catch {
    parsed = { raw: reply.body };
  }
  return { status: reply.status, body: parsed, contentType: reply.contentType };
}
