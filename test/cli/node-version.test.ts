import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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
  it('knows which versions are too old', () => {
    expect(nodeTooOld('20.20.2')).toBe(true);
    expect(nodeTooOld('22.11.0')).toBe(true);
    expect(nodeTooOld('22.12.0')).toBe(false);
    expect(nodeTooOld('24.1.0')).toBe(false);
  });

  // The npm scripts fetch a Node instead: test/setup/with-node.test.ts.
  it.skipIf(!OLD_NODE)(`bin/benchdesk.mjs and the server entry refuse an old Node plainly (${OLD_NODE ?? 'no old Node here'})`, async () => {
    const node = OLD_NODE as string;
    const cli = spawnSync(node, [path.join(ROOT, 'bin', 'benchdesk.mjs'), 'jobs', 'list'], { encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/^benchdesk needs Node\.js >= 22\.12 .*this is Node 2\d\./);
    expect(cli.stderr).toMatch(/nvm install 24/);
    expect(cli.stderr).not.toMatch(/TypeError|Cannot read properties/);

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
