import fs from 'node:fs';
import path from 'node:path';

/**
 * Where log lines go (stdout by default, which is often a file the user redirected). pino's
 * default destination reports a failed write as an 'error' event, and a full log disk then took
 * the whole server down. Logging must never stop the API: a line that cannot be written (ENOSPC,
 * EIO, a closed pipe…) is dropped and counted, and a pipe that is momentarily full is retried only
 * briefly, so a slow or broken log sink can neither crash nor stall a request.
 */
export type LogDestination = {
  write(line: string): boolean;
  /** Lines dropped so far because the sink refused them. */
  readonly dropped: number;
  /** The error of the last dropped line (undefined once a later line was written). */
  readonly lastError: NodeJS.ErrnoException | undefined;
};

type WriteSync = (fd: number, buffer: Buffer, offset: number, length: number) => number;

const AGAIN_RETRIES = 5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function createLogDestination(fd = 1, writeSync: WriteSync = fs.writeSync): LogDestination {
  let dropped = 0;
  let lastError: NodeJS.ErrnoException | undefined;
  return {
    write(line: string): boolean {
      const buf = Buffer.from(line);
      let off = 0;
      let again = 0;
      while (off < buf.length) {
        try {
          off += writeSync(fd, buf, off, buf.length - off);
        } catch (err) {
          const e = err as NodeJS.ErrnoException;
          if ((e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK') && again++ < AGAIN_RETRIES) {
            Atomics.wait(sleeper, 0, 0, 2); // a non-blocking pipe is full: wait 2 ms, a few times at most
            continue;
          }
          dropped++;
          lastError = e;
          return true;
        }
      }
      lastError = undefined;
      return true;
    },
    get dropped() {
      return dropped;
    },
    get lastError() {
      return lastError;
    },
  };
}

/** The process's one log destination (stdout unless logToFile chose a file), shared by the app's logger and fastify's. */
let stdoutDestination: LogDestination | undefined;
export function processLogDestination(): LogDestination {
  stdoutDestination ??= createLogDestination(1);
  return stdoutDestination;
}

/**
 * Sends the process's log lines to `file` (appended; 0600 in a 0700 folder) instead of stdout:
 * `npm start` keeps its terminal for a few lines of status, not the JSON log. Call it before
 * anything logs (the destination is chosen once).
 */
export function logToFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(file, 'a', 0o600);
  stdoutDestination = createLogDestination(fd);
}
