// Builds everything that runs in Node or Electron's main process with esbuild:
// ESM bundles for main/server/CLI/bench (npm packages stay external), and the preload as one
// CommonJS file (sandboxed preloads can load neither ESM nor arbitrary modules).
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';

const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning' };

rmSync('dist/main', { recursive: true, force: true });
rmSync('dist/bench', { recursive: true, force: true });

const entries = {
  // server.js checks the Node version, then loads server-app.js (see src-main/server.ts).
  server: 'src-main/server.ts',
  'server-app': 'src-main/server-app.ts',
  cli: 'src-main/cli.ts',
};
if (existsSync('src-main/electron/main.ts')) entries['electron-main'] = 'src-main/electron/main.ts';

await build({
  ...common,
  entryPoints: entries,
  outdir: 'dist/main',
  format: 'esm',
  packages: 'external',
});

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
