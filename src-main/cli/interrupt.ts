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
/** The event loop has not yet turned twice since the first signal. */
let echoPossible = false;

/**
 * A dependency of the store (when-exit, via conf/atomically) answers the first SIGINT by sending
 * the process SIGINT again, from inside its listener. That echo is read on the event loop's next
 * turn however long the first handler took (a busy machine once took 437 ms: a window in
 * milliseconds alone took the echo for a second Ctrl-C and quit without waiting for the
 * release). So a second signal is the echo while the loop has not turned twice since the first,
 * or within ECHO_WINDOW_MS; a person cannot press Ctrl-C twice that fast.
 */
const ECHO_WINDOW_MS = 300;

function onSignal(): void {
  const top = handlers.at(-1);
  if (!top) process.exit(EXIT.interrupted);
  const now = Date.now();
  if (firstAt === null) {
    firstAt = now;
    echoPossible = true;
    // Two turns: the echo's signal is read in the poll phase of the turn after this one.
    setImmediate(() => setImmediate(() => (echoPossible = false)));
    top.onInterrupt();
    return;
  }
  if (echoPossible || now - firstAt < ECHO_WINDOW_MS) {
    echoPossible = false;
    return;
  }
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
