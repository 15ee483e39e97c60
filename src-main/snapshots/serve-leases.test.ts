import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdServeLease, serveLeaseHolders, SERVING_DIR } from './serve-leases';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('serve leases', () => {
  it('a live lease names its holder until it is released; a dead process’s lease is ignored and removed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-leases-'));
    dirs.push(dir);
    expect(serveLeaseHolders(dir, 'shop-1')).toEqual([]);
    const release = await holdServeLease(dir, 'shop-1', 'benchdesk snapshot serve (pid 1)');
    expect(serveLeaseHolders(dir, 'shop-1')).toEqual(['benchdesk snapshot serve (pid 1)']);
    expect(serveLeaseHolders(dir, 'shop-10')).toEqual([]);
    await release();
    expect(serveLeaseHolders(dir, 'shop-1')).toEqual([]);
    // A process that served and died without removing its lease (SIGKILL).
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const pid = Number(gone.stdout.trim());
    await writeFile(path.join(dir, SERVING_DIR, `shop-1.${pid}.json`), JSON.stringify({ snapshot_id: 'shop-1', holder: 'dead', pid, started_at: '' }));
    expect(serveLeaseHolders(dir, 'shop-1')).toEqual([]);
    expect(await readdir(path.join(dir, SERVING_DIR))).toEqual([]);
  });
});
