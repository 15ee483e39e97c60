// Builds everything that runs in Node or Electron's main process with esbuild:
// ESM bundles for main/server/CLI/bench (npm packages stay external), and the preload as one
// CommonJS file (sandboxed preloads can load neither ESM nor arbitrary modules).
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import { MIN_NODE, planNodeRun, shortPath } from './lib/node-runtime.mjs';
import { CLI_BUNDLE } from './lib/cli-bundle.mjs';
import { buildWorkers } from './lib/workers.mjs';

/** @type {import('esbuild').BuildOptions} */
const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning' };

rmSync('dist/main', { recursive: true, force: true });
rmSync('dist/bench', { recursive: true, force: true });

/** @type {Record<string, string>} */
const entries = {
  // server.js checks the Node version, then loads server-app.js (see src-main/server.ts).
  server: 'src-main/server.ts',
  // `npm start` without Electron: the same server, with the browser UI and the app's own token.
  'browser-app': 'src-main/browser-app.ts',
  'server-app': 'src-main/server-app.ts',
};
if (existsSync('src-main/electron/main.ts')) entries['electron-main'] = 'src-main/electron/main.ts';

await build({
  ...common,
  entryPoints: entries,
  outdir: 'dist/main',
  format: 'esm',
  packages: 'external',
});

await build({ ...CLI_BUNDLE, sourcemap: true, logLevel: 'warning', entryPoints: { cli: 'src-main/cli.ts' }, outdir: 'dist/main' });

// Worker threads (scripts/lib/workers.mjs): beside the bundles that start them.
await buildWorkers(build, process.cwd(), 'dist/main');

if (existsSync('src-main/electron/preload.ts')) {
  await build({
    ...common,
    entryPoints: ['src-main/electron/preload.ts'],
    outfile: 'dist/main/preload.cjs',
    format: 'cjs',
    platform: 'browser',
    minify: true,
    external: ['electron'],
  });
}

if (existsSync('src-main/bench/index.ts')) {
  await build({ ...common, entryPoints: ['src-main/bench/index.ts'], outdir: 'dist/bench', format: 'esm', packages: 'external' });
}

// `npm install` (prepare) on an old Node: the install works, and npm has just printed its EBADENGINE
// warnings; say in one line what happens next.
const plan = planNodeRun({ version: process.versions.node, env: { ...process.env, npm_lifecycle_event: undefined }, platform: process.platform, arch: process.arch, home: os.homedir() });
if (plan.action !== 'run') {
  const built = `benchdesk: built with Node ${process.versions.node}, older than ${MIN_NODE.join('.')} (hence npm's EBADENGINE warnings)`;
  console.error(
    plan.action === 'bootstrap'
      ? `${built}: npm start, npm test, npm run serve and npm run bench fetch Node 24 into ${shortPath(plan.cacheDir, os.homedir())} on first use and run under it.`
      : `${built}. ${plan.message.split('\n').slice(0, 2).join(' ')}`,
  );
}
