import type { ChildProcess } from 'node:child_process';

/**
 * Every child process a test starts through the helpers (servers, CLI runs, proxies), so none
 * outlives its test file: a test that fails before its own cleanup used to leave a
 * `benchdesk snapshot serve` listening for 45 minutes. Each file's afterAll (or the worker's exit)
 * kills what is still running.
 */
const live = new Set<ChildProcess>();

export function trackChild<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Children started and not yet exited. */
export function liveChildren(): number {
  return live.size;
}

/** SIGKILLs every tracked child still running and waits for them to go. */
export async function killChildren(): Promise<void> {
  const waiting = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waiting);
}

// The last resort, when a worker ends without its afterAll having run: signals are sent synchronously.
process.once('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
