// Fetches Node from the npm registry into the per-user cache (the I/O half of node-runtime.mjs).
// The package lands in a private folder first and is renamed into place once it runs: a second
// script fetching at the same time, or one interrupted half way, never leaves a broken cache.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { nodeTooOld } from './node-runtime.mjs';

/**
 * The version of the Node at `nodePath` when it runs and is new enough, else undefined.
 * @param {string} nodePath
 */
export function usableNodeVersion(nodePath) {
  if (!existsSync(nodePath)) return undefined;
  const res = spawnSync(nodePath, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 30_000 });
  const version = res.status === 0 ? res.stdout.trim() : '';
  return version && !nodeTooOld(version) ? version : undefined;
}

/**
 * `npm install <spec>` into `prefix`, with npm's output kept (shown only when it fails).
 * @param {{ spec: string, prefix: string, npmCli: string | undefined, env: Record<string, string | undefined> }} o
 * @returns {Promise<{ ok: boolean, output: string }>}
 */
function npmInstall({ spec, prefix, npmCli, env }) {
  const args = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', '--prefix', prefix, spec];
  const useCli = npmCli !== undefined && /\.[cm]?js$/.test(npmCli);
  return new Promise((resolve) => {
    const child = spawn(useCli ? process.execPath : 'npm', useCli ? [npmCli, ...args] : args, {
      cwd: prefix,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: !useCli && process.platform === 'win32',
    });
    let output = '';
    const keep = (/** @type {Buffer} */ chunk) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (err) => resolve({ ok: false, output: err.message }));
    child.once('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** The first line of npm's complaint that says what went wrong, without its log-file footer. */
function npmReason(/** @type {string} */ output) {
  const lines = output.split('\n').map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim()).filter(Boolean);
  const useful = lines.filter((line) => !/complete log of this run|^code\s|^errno\s|^syscall\s/i.test(line));
  return (useful.find((line) => /request to|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|404|EAI_AGAIN|network/i.test(line)) ?? useful[0] ?? 'npm failed').slice(0, 300);
}

export class BootstrapError extends Error {}

/**
 * Makes sure the cache holds a working Node: reuses it, or fetches it. Throws BootstrapError with
 * a sentence for the user when it cannot.
 * @param {{ spec: string, cacheDir: string, packageDir: string, nodePath: string }} plan
 * @param {{ npmCli: string | undefined, env: Record<string, string | undefined>, onFetch?: () => void }} how
 * @returns {Promise<{ version: string, fetched: boolean }>}
 */
export async function ensureNode(plan, how) {
  const cachedVersion = usableNodeVersion(plan.nodePath);
  if (cachedVersion) return { version: cachedVersion, fetched: false };
  how.onFetch?.();

  const parent = path.dirname(plan.cacheDir);
  mkdirSync(parent, { recursive: true });
  const partial = `${plan.cacheDir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    const installed = await npmInstall({ spec: plan.spec, prefix: partial, npmCli: how.npmCli, env: how.env });
    if (!installed.ok) throw new BootstrapError(`fetching ${plan.spec} from the npm registry failed (${npmReason(installed.output)})`);
    const partialNode = path.join(partial, path.relative(plan.cacheDir, plan.nodePath));
    const version = usableNodeVersion(partialNode);
    if (!version) throw new BootstrapError(`the Node in ${plan.spec} does not run on this machine`);
    // Whatever sits at cacheDir does not work (checked above): move it out of the way first.
    if (existsSync(plan.cacheDir)) {
      const stale = `${plan.cacheDir}.stale-${process.pid}`;
      try {
        renameSync(plan.cacheDir, stale);
        rmSync(stale, { recursive: true, force: true });
      } catch {
        // Another script replaced it at the same moment; checked again below.
      }
    }
    try {
      renameSync(partial, plan.cacheDir);
    } catch (err) {
      // Another script got there first: use its copy if it works.
      const theirs = usableNodeVersion(plan.nodePath);
      if (theirs) return { version: theirs, fetched: true };
      throw new BootstrapError(`could not place Node in ${plan.cacheDir} (${err instanceof Error ? err.message : String(err)})`);
    }
    return { version, fetched: true };
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
