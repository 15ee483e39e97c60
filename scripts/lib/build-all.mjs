// `npm run build` from a script, as part of `npm start` / `npm run serve`. Synchronous on purpose:
// the server these scripts then load in this process sizes libuv's thread pool before its first
// use (src-main/runtime-tuning.ts), so nothing before it may touch the pool.
import { spawnSync } from 'node:child_process';

/**
 * Builds the Node side and the renderer; on failure exits with the build's code (the build has
 * said what is wrong). `quiet` (`npm start`): the build's output is kept, and shown only when it
 * fails; one line says it is built.
 * @param {string} root the project folder
 * @param {{ quiet?: boolean }} [options]
 */
export function buildAll(root, options = {}) {
  const npmCli = process.env.npm_execpath;
  const useCli = npmCli !== undefined && /\.[cm]?js$/.test(npmCli);
  const started = Date.now();
  /** @type {import('node:child_process').SpawnSyncOptions} */
  const how = { cwd: root, stdio: options.quiet ? 'pipe' : 'inherit', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 };
  const res = useCli ? spawnSync(process.execPath, [npmCli, 'run', 'build'], how) : spawnSync('npm', ['run', 'build'], { ...how, shell: process.platform === 'win32' });
  if (res.error) {
    process.stderr.write(`benchdesk: could not run \`npm run build\`: ${res.error.message}\n`);
    process.exit(1);
  }
  if (res.status !== 0) {
    if (options.quiet) process.stderr.write(`${String(res.stdout ?? '')}${String(res.stderr ?? '')}`);
    process.exit(res.status ?? 1);
  }
  if (options.quiet) process.stderr.write(`benchdesk: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
