#!/usr/bin/env node
// Launcher for `npx benchdesk`: the CLI is built to dist/main/cli.js by `npm install` (prepare).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../dist/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('benchdesk: the CLI is not built yet; run `npm run build:node` in the benchdesk folder');
  process.exit(1);
}
await import(pathToFileURL(cli).href);
