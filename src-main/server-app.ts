import { runServe, type ServeOptions } from './cli/serve';

/**
 * Runs the headless server (loaded by the entries server.ts and browser-app.ts once the Node check
 * passed). A start-up failure is one line on stderr and exit code 1, never a stack trace.
 */
export function main(options: ServeOptions): void {
  runServe(options).catch((err: unknown) => {
    console.error(`benchdesk: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
