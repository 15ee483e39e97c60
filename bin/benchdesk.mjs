#!/usr/bin/env node
// Launcher for `npx benchdesk`: the CLI is built to dist/main/cli.js by `npm install` (prepare).
// Checks the Node version BEFORE loading the CLI: on an old Node a dependency would otherwise
// crash at import time with an unrelated message. Keep this file plain JavaScript that parses on
// old Node (no syntax newer than the ES modules themselves).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MIN = /** @type {const} */ ([22, 12]);
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < MIN[0] || (major === MIN[0] && minor < MIN[1])) {
  console.error(
    `benchdesk needs Node.js >= ${MIN.join('.')} (Node 24 recommended); this is Node ${process.versions.node}.\n` +
      'Get it with nvm:   nvm install 24 && nvm use 24\n' +
      `or run it once without installing Node, through npm:   npx -y node@24 ${fileURLToPath(import.meta.url)} <command>\n` +
      'or download it from https://nodejs.org/',
  );
  process.exit(1);
}

const cli = fileURLToPath(new URL('../dist/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('benchdesk: the CLI is not built yet; run `npm run build:node` in the benchdesk folder');
  process.exit(1);
}
// Cache compiled code between runs (Node >= 22.1): most of a short command's time is compiling its modules.
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();
await import(pathToFileURL(cli).href);
