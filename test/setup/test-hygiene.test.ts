import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { killChildren, liveChildren, trackChild } from '../helpers/children';

/**
 * Issue 34 item 10: a fresh clone's first `npm test` is green. A port derived from the test
 * process's pid was found in use; a `snapshot serve` that a failed test did not stop kept
 * listening for 45 minutes. Tests take their ports from the OS and stop what they start.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (/\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

const testSources = [...sources('test'), ...sources('e2e')].filter((f) => f !== path.join('test', 'setup', 'test-hygiene.test.ts'));

describe('tests and the processes and ports they use', () => {
  it('no test derives a port from its pid or names a fixed one: ports come from the OS', () => {
    const offenders: string[] = [];
    for (const file of testSources) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      if (/process\.pid\s*%/.test(text)) offenders.push(`${file}: a port from process.pid`);
      if (/BENCHDESK_PORT:\s*['"`][1-9]/.test(text)) offenders.push(`${file}: a fixed BENCHDESK_PORT`);
      if (/\.listen\(\s*[1-9][0-9]*\s*[,)]/.test(text)) offenders.push(`${file}: listen() on a fixed port`);
    }
    expect(offenders).toEqual([]);
  });

  it('every test file that starts servers or CLI runs through the helpers stops them when it ends', () => {
    const missing = testSources
      // (e2e/ has its own server helper, with its own cleanup.)
      .filter((file) => file.startsWith('test') && file.endsWith('.test.ts'))
      .filter((file) => /\b(startServer|spawnCli|runCli)\(/.test(readFileSync(path.join(ROOT, file), 'utf8')))
      .filter((file) => !/afterAll\(\s*(async \(\) => \{[^}]*)?killChildren/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(missing).toEqual([]);
  });

  it('killChildren stops what a test left running, even a child that ignores SIGTERM', async () => {
    const child = trackChild(spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' }));
    await new Promise((resolve) => child.once('spawn', resolve));
    expect(liveChildren()).toBeGreaterThan(0);
    await killChildren();
    expect(child.signalCode).toBe('SIGKILL');
    expect(liveChildren()).toBe(0);
  });
});
