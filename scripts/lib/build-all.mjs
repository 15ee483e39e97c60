// `npm run build` from a script, as part of `npm start` / `npm run serve`. Synchronous on purpose:
// the server these scripts then load in this process sizes libuv's thread pool before its first
// use (src-main/runtime-tuning.ts), so nothing before it may touch the pool.
import { spawnSync } from 'node:child_process';

/**
 * Builds the Node side and the renderer; on failure exits with the build's code (the build has
 * said what is wrong).
 * @param {string} root the project folder
 */
export function buildAll(root) {
  const npmCli = process.env.npm_execpath;
  const useCli = npmCli !== undefined && /\.[cm]?js$/.test(npmCli);
  const res = useCli
    ? spawnSync(process.execPath, [npmCli, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (res.error) {
    process.stderr.write(`benchdesk: could not run \`npm run build\`: ${res.error.message}\n`);
    process.exit(1);
  }
  if (res.status !== 0) process.exit(res.status ?? 1);
}
