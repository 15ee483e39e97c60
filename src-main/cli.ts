import { runCli } from './cli/main';

// dist/main/cli.js: the `benchdesk` command (package.json bin → bin/benchdesk.mjs, which checks Node first).
runCli(process.argv.slice(2)).then(
  (code) => {
    // null: the command keeps running (`serve`). Otherwise exit once stdout has flushed: the
    // in-process engine's idle sockets and timers must not hold a finished command open.
    if (code !== null) process.stdout.write('', () => process.exit(code));
  },
  (err: unknown) => {
    console.error(`benchdesk: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
