import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { AgentError, formatDuration, stderrExcerpt } from './errors';
import { signalTree, stopTree, trackTree, treeAlive, untrackTree, type ProcessTree } from './process-group';
import { StderrCollector, StdoutCollector } from './process-output';

/**
 * Runs one external program to completion with the safety rails every agent process needs: a
 * time limit, cancellation, and kill of the whole process group (drivers start grandchildren,
 * e.g. `benchdesk driver holmes` → `holmes` → `kubectl`): SIGTERM, then SIGKILL after a grace
 * period; bounded stdout and stderr, stderr surfaced line by line, and optionally a temporary
 * directory of its own (TMPDIR) removed once every process of the run is gone. The call settles
 * only after that, so a cancelled or timed-out run leaves nothing behind.
 * Used by the stdio driver transport and by the holmes/k8sgpt drivers.
 */

export const DEFAULT_KILL_GRACE_MS = 3000;
export const DEFAULT_MAX_STDERR_BYTES = 64 * 1024;
/** After the program exits, how long to wait for its pipes to close (a leaked grandchild may hold them). */
const EXIT_DRAIN_MS = 1000;

export type RunProcessOptions = {
  argv: readonly string[];
  /** Used in messages: "driver 'myagent'", "holmes". */
  label: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; undefined → stdin is /dev/null. */
  input?: string;
  timeoutMs: number;
  killGraceMs?: number;
  maxStdoutBytes: number;
  /** Keep only the first maxStdoutBytes instead of failing (for programs whose stdout we only show). */
  truncateStdout?: boolean;
  maxStderrBytes?: number;
  signal?: AbortSignal;
  onStderrLine?: (line: string) => void;
  /** Hint appended to "command not found" (e.g. how to install the program). */
  notFoundHint?: string;
  /**
   * `own` (default): the program leads a new process group, and stopping it stops the group.
   * `inherit`: it stays in this process's group, for a driver process whose own runner stops the
   * whole group (a nested group would escape that kill); stopping it here signals the program only.
   */
  processGroup?: 'own' | 'inherit';
  /** Give the run a temporary directory of its own (TMPDIR, TMP, TEMP), removed when the run is over. */
  tempDir?: boolean;
  /**
   * For programs that answer and should then exit: once `done(stdout)` holds, the program gets
   * `graceMs` to exit before its group is stopped, and the run still counts as complete
   * (`lingered`). Keeps an answered call from waiting for the time limit on a process that
   * idles (e.g. open keep-alive sockets).
   */
  stopAfterOutput?: { done: (stdout: string) => boolean; graceMs: number };
};

export type ProcessOutcome = {
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderrTail: string;
  durationMs: number;
  /** True when the program was stopped after it had answered (see stopAfterOutput). */
  lingered: boolean;
};

const processGroupsExist = process.platform !== 'win32';

function spawnFailure(err: NodeJS.ErrnoException, opts: RunProcessOptions): AgentError {
  const cmd = opts.argv[0] ?? '';
  const hint = opts.notFoundHint ? `; ${opts.notFoundHint}` : '';
  if (err.code === 'ENOENT') {
    return new AgentError('spawn_failed', `${opts.label}: command not found: '${cmd}' (not installed or not on PATH${hint})`, {}, { cause: err });
  }
  if (err.code === 'EACCES') {
    return new AgentError('spawn_failed', `${opts.label}: '${cmd}' is not executable (EACCES)`, {}, { cause: err });
  }
  return new AgentError('spawn_failed', `${opts.label}: failed to start '${cmd}': ${err.message}`, {}, { cause: err });
}

export async function runProcess(opts: RunProcessOptions): Promise<ProcessOutcome> {
  const [command] = opts.argv;
  if (command === undefined) throw new AgentError('invalid_driver', `${opts.label}: empty command`);
  if (opts.signal?.aborted) throw new AgentError('cancelled', `${opts.label} was cancelled before it started`);
  const tempDir = opts.tempDir ? await mkdtemp(path.join(tmpdir(), 'benchdesk-run-')) : undefined;
  try {
    return await run(opts, tempDir);
  } finally {
    // run() settles once every process of the run is gone; nothing writes here any more.
    if (tempDir) await rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The leader is done, but a grandchild may still run (one that ignored SIGTERM, or one a program
 * that exited cleanly left behind): the rest of its grace period, then SIGKILL.
 */
async function stopLeftovers(tree: ProcessTree | undefined, grace: number, termSentAt: number | undefined): Promise<void> {
  if (!tree) return;
  try {
    if (termSentAt !== undefined) await stopTree(tree, grace, termSentAt);
    else if (treeAlive(tree)) await stopTree(tree, grace);
  } finally {
    untrackTree(tree);
  }
}

function spawnProgram(opts: RunProcessOptions, ownGroup: boolean, tempDir: string | undefined): ChildProcess {
  const [command, ...args] = opts.argv as [string, ...string[]];
  const baseEnv = opts.env ?? process.env;
  return spawn(command, args, {
    cwd: opts.cwd,
    env: tempDir ? { ...baseEnv, TMPDIR: tempDir, TMP: tempDir, TEMP: tempDir } : baseEnv,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: ownGroup, // own process group, so a kill reaches grandchildren
    windowsHide: true,
  });
}

/** Writes the program's whole input and closes its stdin. */
function writeInput(stdin: Writable, input: string): void {
  stdin.on('error', () => {
    // EPIPE: the program exited without reading its input; the exit status tells the story.
  });
  stdin.end(input);
}

function run(opts: RunProcessOptions, tempDir: string | undefined): Promise<ProcessOutcome> {
  const grace = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const ownGroup = (opts.processGroup ?? 'own') === 'own' && processGroupsExist;
  const started = performance.now();

  return new Promise<ProcessOutcome>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnProgram(opts, ownGroup, tempDir);
    } catch (err) {
      reject(spawnFailure(err as NodeJS.ErrnoException, opts));
      return;
    }
    const tree: ProcessTree | undefined = child.pid === undefined ? undefined : { pid: child.pid, ownGroup, tempDir };
    if (tree) trackTree(tree);

    const stderr = new StderrCollector(opts.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES, opts.onStderrLine);
    const stdout = new StdoutCollector(opts.maxStdoutBytes, opts.truncateStdout === true);
    let failure: AgentError | null = null;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let answered = false;
    let lingered = false;
    /** When we sent SIGTERM (a failure, a cancel, or a program that lingered after answering). */
    let termSentAt: number | undefined;
    const timers: NodeJS.Timeout[] = [];

    const terminate = (): void => {
      if (!tree || termSentAt !== undefined) return;
      termSentAt = Date.now();
      signalTree(tree, 'SIGTERM');
      timers.push(setTimeout(() => signalTree(tree, 'SIGKILL'), grace));
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      opts.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      stderr.end();
      void stopLeftovers(tree, grace, termSentAt).then(() => {
        if (failure) {
          failure.details.stderrTail = stderr.text;
          reject(failure);
          return;
        }
        resolve({
          exitCode,
          exitSignal,
          stdout: stdout.text,
          stderrTail: stderr.text,
          durationMs: performance.now() - started,
          lingered,
        });
      });
    };

    const fail = (err: AgentError): void => {
      if (failure || settled) return;
      failure = err;
      terminate();
      // Settle even if the pipes never close.
      timers.push(setTimeout(finish, grace + EXIT_DRAIN_MS));
    };

    function onAbort(): void {
      fail(new AgentError('cancelled', `${opts.label} was cancelled; its processes were stopped`));
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    timers.push(
      setTimeout(() => {
        fail(new AgentError('timeout', `${opts.label} did not finish within ${formatDuration(opts.timeoutMs)}; its processes were stopped`));
      }, opts.timeoutMs),
    );

    child.on('error', (err: NodeJS.ErrnoException) => {
      // Only a spawn failure matters here; later errors (e.g. a failed kill) show up as exit/close.
      if (child.pid === undefined && !failure) {
        failure = spawnFailure(err, opts);
        finish();
      }
    });

    child.stdout?.on('data', (chunk: Buffer) => {
      if (failure) return;
      const kept = stdout.push(chunk);
      if (kept === 'overflow') {
        fail(new AgentError('output_too_large', `${opts.label} wrote more than ${opts.maxStdoutBytes} bytes to stdout; its processes were stopped`));
        return;
      }
      if (kept === 'truncated') return;
      const stop = opts.stopAfterOutput;
      if (stop && !answered && chunk.includes(10) && stop.done(stdout.text)) {
        answered = true;
        timers.push(
          setTimeout(() => {
            if (settled || failure || exitCode !== null || exitSignal !== null) return;
            lingered = true;
            terminate();
            timers.push(setTimeout(finish, grace + EXIT_DRAIN_MS));
          }, stop.graceMs),
        );
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    if (opts.input !== undefined && child.stdin) writeInput(child.stdin, opts.input);

    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      timers.push(setTimeout(finish, EXIT_DRAIN_MS));
    });
    child.on('close', (code, sig) => {
      exitCode ??= code;
      exitSignal ??= sig;
      finish();
    });
  });
}

/** "exit code 3" / "killed by SIGSEGV", for messages. */
export function describeExit(outcome: Pick<ProcessOutcome, 'exitCode' | 'exitSignal'>): string {
  if (outcome.exitSignal) return `killed by ${outcome.exitSignal}`;
  return `exit code ${outcome.exitCode ?? 'unknown'}`;
}

/**
 * A non-zero exit as an AgentError carrying the stderr tail. With `withStdout`, programs that
 * report errors on stdout (rich consoles, k8sgpt) are quoted from stdout too.
 */
export function exitFailure(label: string, outcome: ProcessOutcome, what = 'failed', withStdout = false): AgentError {
  const parts: string[] = [];
  const err = stderrExcerpt(outcome.stderrTail, withStdout ? 1000 : 2000);
  if (err) parts.push(err);
  const out = withStdout ? stderrExcerpt(outcome.stdout, 1000) : '';
  if (out) parts.push(err ? `stdout: ${out}` : out);
  const tail = parts.length ? `: ${parts.join(' | ')}` : ' (no error output)';
  return new AgentError('exit_nonzero', `${label} ${what} (${describeExit(outcome)})${tail}`, {
    exitCode: outcome.exitCode,
    exitSignal: outcome.exitSignal,
    stderrTail: outcome.stderrTail,
  });
}
