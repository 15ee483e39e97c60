import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Ctrl-C in the CLI (src-main/cli/interrupt.ts) with real signals: the store's dependency echoes
 * the first SIGINT, and a slow first handler must not turn that echo into "quit without waiting"
 * (a fresh-clone run did so when the echo came 437 ms after the first signal). A person's second
 * Ctrl-C still quits at once.
 */

let dir = '';
let fixture = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-interrupt-'));
  fixture = path.join(dir, 'interrupt-fixture.mjs');
  await build({ entryPoints: [path.join(import.meta.dirname, 'interrupt-fixture.ts')], bundle: true, platform: 'node', format: 'esm', outfile: fixture, logLevel: 'silent' });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the fixture, sends SIGINT when it is ready and again at each `thenAfterMs`; resolves with what it said and its exit code. */
function run(cleanupMs: number, thenAfterMs: number[] = []): Promise<{ said: string[]; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, String(cleanupMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const before = out;
      out += chunk.toString('utf8');
      if (!before.includes('ready') && out.includes('ready')) {
        child.kill('SIGINT');
        for (const ms of thenAfterMs) setTimeout(() => child.kill('SIGINT'), ms);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ said: out.split('\n').filter(Boolean), code });
    });
  });
}

describe('Ctrl-C with an echoing dependency and a slow first handler', () => {
  it('the echo is not a second Ctrl-C: the handler finishes its cleanup and the process exits 130', async () => {
    const { said, code } = await run(200);
    expect(said).toEqual(['ready', 'interrupt', 'cleaned']);
    expect(code).toBe(130);
  });

  it('a second Ctrl-C from the user, later, still quits without waiting', async () => {
    // The cleanup would take 10 s; the user presses Ctrl-C again 2 s after the first.
    const { said, code } = await run(10_000, [2_000]);
    expect(said).toEqual(['ready', 'interrupt', 'force']);
    expect(code).toBe(131);
  });
});
