import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { CLI_BUNDLE } from '../../scripts/lib/cli-bundle.mjs';
import { buildWorkers } from '../../scripts/lib/workers.mjs';
import { SCENARIO } from '../fakes/kubernetes';
import { trackChild } from '../helpers/children';
import type { ChatTurn } from '../fakes/ollama';

/**
 * Runs the real `benchdesk` CLI as a child process. The bundle is built from src-main/cli.ts with
 * the settings of scripts/build.mjs, into a folder of its own: scripts/build.mjs empties dist/main
 * first, which would pull the CLI from under other test files running in parallel.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');

export async function buildCliBundle(): Promise<{ cliPath: string; cleanup: () => Promise<void> }> {
  // Inside node_modules so the bundle's external imports (commander, fastify, zod…) resolve.
  const outdir = path.join(ROOT, 'node_modules', '.cache', `benchdesk-cli-test-${process.pid}-${Math.random().toString(16).slice(2, 8)}`);
  await mkdir(outdir, { recursive: true });
  await build({ ...CLI_BUNDLE, entryPoints: { cli: path.join(ROOT, 'src-main', 'cli.ts') }, outdir, logLevel: 'silent' });
  // The worker threads the CLI starts (the scorer) sit beside it, as in dist/main.
  await buildWorkers(build, ROOT, outdir);
  return { cliPath: path.join(outdir, 'cli.js'), cleanup: () => rm(outdir, { recursive: true, force: true }) };
}

export type CliRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** An environment with nothing from the developer's shell that changes the CLI's behaviour. */
export function cliEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    // Jobs that outlive the test end quickly when the in-process engine shuts down.
    BENCHDESK_SHUTDOWN_GRACE_S: '0',
    // Most of a short command's time is compiling its modules: cache it across the spawns of a run.
    NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules', '.cache', 'benchdesk-cli-compile-cache'),
    ...extra,
  };
}

export type Spawned = {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  done: Promise<CliRun>;
};

export function spawnCli(cliPath: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Spawned {
  // Tracked: a test that fails before it stops the child does not leave it running (children.ts).
  const child = trackChild(spawn(process.execPath, [cliPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`benchdesk ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function runCli(cliPath: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs?: number): Promise<CliRun> {
  return spawnCli(cliPath, args, env, timeoutMs).done;
}

/** Parses stdout as one JSON document (what --json promises). */
export function stdoutJson(run: CliRun): unknown {
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const CRASH = SCENARIO.crashLoopPod;
export const ANSWER = `${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: it cannot connect to postgres.shop.svc:5432.`;
/** The built-in agent's conversation with the fake Ollama: two tool calls, then the answer. */
export function agentScript(): ChatTurn[] {
  return [
    { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] },
    { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true } }] },
    { content: ANSWER },
  ];
}

/** One line of the non-TTY progress: `<RFC 3339>  [<phase>]  mm:ss  [$cost @ $dph/h]  <event> <status>…`. */
export const PROGRESS_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z {2}\[([\w-]+)\] {2}\d\d:\d\d {2}(?:\$\d+\.\d{4} @ \$\d+\.\d{3}\/h {2})?(\S+) (started|ok|error|info)/;
