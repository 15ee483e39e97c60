import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeTooOld } from '../../src-main/node-version';
import { findOldNode } from '../helpers/old-node';

/**
 * On a Node older than engines.node the entry points say which Node they need and how to get it
 * (exit 1), instead of crashing inside a dependency at import time.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');

const OLD_NODE = findOldNode();

describe('the Node version check', () => {
  it.skipIf(!OLD_NODE || process.platform !== 'linux')('npx benchdesk on an old Node runs under the Node 24 npm start cached (issue 34 item 11)', async () => {
    const cache = await mkdtemp(path.join(tmpdir(), 'benchdesk-node-cache-'));
    try {
      // Where npm start leaves it (scripts/lib/node-runtime.mjs): a stand-in that says how it was run.
      const bin = path.join(cache, 'node_modules', `node-linux-${process.arch}`, 'bin');
      await mkdir(bin, { recursive: true });
      await writeFile(path.join(bin, 'node'), '#!/bin/sh\necho "cached node ran: $*"\nexit 7\n', { mode: 0o755 });
      const cli = spawnSync(OLD_NODE as string, [path.join(ROOT, 'bin', 'benchdesk.mjs'), 'jobs', 'list', '--json'], { encoding: 'utf8', env: { ...process.env, BENCHDESK_NODE_CACHE: cache } });
      expect(cli.stdout).toBe(`cached node ran: ${path.join(ROOT, 'bin', 'benchdesk.mjs')} jobs list --json\n`);
      // Its exit code is the CLI's.
      expect(cli.status).toBe(7);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it('knows which versions are too old', () => {
    expect(nodeTooOld('20.20.2')).toBe(true);
    expect(nodeTooOld('22.11.0')).toBe(true);
    expect(nodeTooOld('22.12.0')).toBe(false);
    expect(nodeTooOld('24.1.0')).toBe(false);
  });

  // The npm scripts fetch a Node instead: test/setup/with-node.test.ts.
  it.skipIf(!OLD_NODE)(`bin/benchdesk.mjs and the server entry refuse an old Node plainly (${OLD_NODE ?? 'no old Node here'})`, async () => {
    const node = OLD_NODE as string;
    // No Node 24 in the cache npm start fills (an empty one of its own): the CLI says what to do.
    const emptyCache = await mkdtemp(path.join(tmpdir(), 'benchdesk-node-cache-'));
    try {
      const cli = spawnSync(node, [path.join(ROOT, 'bin', 'benchdesk.mjs'), 'jobs', 'list'], { encoding: 'utf8', env: { ...process.env, BENCHDESK_NODE_CACHE: emptyCache } });
      expect(cli.status).toBe(1);
      expect(cli.stderr).toMatch(/^benchdesk needs Node\.js >= 22\.12 .*this is Node 2\d\./);
      expect(cli.stderr).toMatch(/Run `npm start` .* fetches Node 24 into .*benchdesk-node-cache-.*`npx benchdesk` uses it from then on/);
      expect(cli.stderr).toMatch(/nvm install 24/);
      expect(cli.stderr).not.toMatch(/TypeError|Cannot read properties/);
    } finally {
      await rm(emptyCache, { recursive: true, force: true });
    }

    // The server entry as scripts/build.mjs builds it: server.js checks, then loads server-app.js.
    const outdir = await mkdtemp(path.join(ROOT, 'node_modules', '.cache', 'benchdesk-node-check-'));
    try {
      await build({
        entryPoints: { server: path.join(ROOT, 'src-main', 'server.ts'), 'server-app': path.join(ROOT, 'src-main', 'server-app.ts') },
        outdir,
        bundle: true,
        platform: 'node',
        target: 'node22',
        format: 'esm',
        packages: 'external',
        logLevel: 'silent',
      });
      const server = spawnSync(node, [path.join(outdir, 'server.js')], { encoding: 'utf8' });
      expect(server.status).toBe(1);
      expect(server.stderr).toMatch(/^the benchdesk server needs Node\.js >= 22\.12/);
      expect(server.stderr).not.toMatch(/TypeError|Cannot read properties/);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});
