#!/usr/bin/env node
// Launcher for `npx benchdesk`: the CLI is built to dist/main/cli.js by `npm install` (prepare).
// Checks the Node version BEFORE loading the CLI: on an old Node a dependency would otherwise
// crash at import time with an unrelated message. Keep this file plain JavaScript that parses on
// old Node (no syntax newer than the ES modules themselves).
import { existsSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bootstrappedEnv, nodeTooOld, planNodeRun, shortPath } from '../scripts/lib/node-runtime.mjs';
import { exitLike, runThrough } from '../scripts/lib/run-through.mjs';

const MIN = /** @type {const} */ ([22, 12]);
if (nodeTooOld(process.versions.node, MIN)) {
  // `npm start` (scripts/with-node.mjs) fetched Node 24 into a per-user cache on this old Node:
  // run under it, as npm start does, instead of refusing (issue 34 item 11).
  const plan = planNodeRun({ version: process.versions.node, env: process.env, platform: process.platform, arch: process.arch, home: os.homedir() });
  if (plan.action === 'bootstrap' && existsSync(plan.nodePath)) {
    const result = await runThrough(plan.nodePath, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { env: bootstrappedEnv(process.env, plan) });
    if (!result.error) exitLike(result);
  }
  const cached = plan.action === 'bootstrap' ? shortPath(plan.cacheDir, os.homedir()) : undefined;
  console.error(
    `benchdesk needs Node.js >= ${MIN.join('.')} (Node 24 recommended); this is Node ${process.versions.node}.\n` +
      (cached ? `Run \`npm start\` (or \`npm test\`) in the benchdesk folder once: it fetches Node 24 into ${cached}, and \`npx benchdesk\` uses it from then on.\n` : '') +
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
