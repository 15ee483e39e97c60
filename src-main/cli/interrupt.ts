import { EXIT } from './exit-codes';

/**
 * Ctrl-C routing. Whoever owns the moment (a job being submitted or followed) registers a handler;
 * once one has been registered, a SIGINT without a current handler exits 130 at once. A second Ctrl-C while a handler is still cleaning up
 * runs the handler's `force` (or exits 130): the user always gets the terminal back.
 */
type Handler = { onInterrupt: () => void; force?: () => void };

const handlers: Handler[] = [];
let installed = false;
let firstAt: number | null = null;

/**
 * A dependency of the store (when-exit, via conf/atomically) answers the first SIGINT by sending
 * the process SIGINT again, a few milliseconds later. A second signal that close to the first is
 * that echo, not a second Ctrl-C from the user.
 */
const ECHO_WINDOW_MS = 300;

function onSignal(): void {
  const top = handlers.at(-1);
  if (!top) process.exit(EXIT.interrupted);
  const now = Date.now();
  if (firstAt === null) {
    firstAt = now;
    top.onInterrupt();
    return;
  }
  if (now - firstAt < ECHO_WINDOW_MS) return;
  if (top.force) top.force();
  else process.exit(EXIT.interrupted);
}

/**
 * Installed on first use only: `serve` has its own graceful SIGINT handling, and a command that
 * never registers a handler keeps Node's default (the process ends, the shell reports 130).
 */
function install(): void {
  if (installed) return;
  installed = true;
  process.on('SIGINT', onSignal);
}

export function onInterrupt(handler: Handler): () => void {
  install();
  handlers.push(handler);
  return () => {
    const i = handlers.indexOf(handler);
    if (i >= 0) handlers.splice(i, 1);
  };
}
