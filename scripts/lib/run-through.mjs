// Runs a child as if it were this process: the same stdio, the signals we receive passed on, and
// its exit code (or the signal that ended it) becomes ours. Used to re-run an npm script under
// another Node and to run the Electron binary.
import { spawn } from 'node:child_process';
import os from 'node:os';

const FORWARDED = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']);

/**
 * Resolves with how the child ended. While it runs, the signals in FORWARDED are passed to it
 * instead of ending this process: Ctrl-C in a terminal reaches the child directly too (same
 * process group), a `kill <pid>` of this process only through us. A child therefore may see a
 * signal twice, as it does under npm, which forwards them as well.
 * @param {string} file @param {readonly string[]} args
 * @param {{ env?: Record<string, string | undefined>, cwd?: string, shell?: boolean }} [options]
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, error?: Error }>}
 */
export function runThrough(file, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], { stdio: 'inherit', env: options.env, cwd: options.cwd, shell: options.shell ?? false });
    /** @type {Array<[NodeJS.Signals, () => void]>} */
    const handlers = FORWARDED.map((signal) => [signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    }]);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = (/** @type {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} */ result) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolve(result);
    };
    child.once('error', (error) => done({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => done({ code, signal }));
  });
}

/**
 * Ends this process the way the child ended: the same exit code, or the same signal (re-raised on
 * ourselves, so our parent sees "killed by SIGINT" as it would have without us).
 * @param {{ code: number | null, signal: NodeJS.Signals | null }} result
 * @returns {never}
 */
export function exitLike(result) {
  if (result.signal) {
    const number = os.constants.signals[result.signal] ?? 0;
    process.removeAllListeners(result.signal);
    process.kill(process.pid, result.signal);
    // Not every signal ends a Node process by default (or on every platform): the shell's convention.
    process.exit(128 + number);
  }
  process.exit(result.code ?? 1);
}
