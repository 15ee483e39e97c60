import { runCli } from './cli/main';

// dist/main/cli.js: the `benchdesk` command (package.json bin → bin/benchdesk.mjs).
runCli(process.argv.slice(2)).then(
  (code) => {
    // `serve` keeps running; everything else exits with its code.
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    console.error(`benchdesk: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
