import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotService, type SnapshotService } from '../../src-main/app/snapshots';
import { createSuiteService } from '../../src-main/app/suites';
import { starterSuite } from '../../src-main/suites/starter';

/** Suites on disk: one 0600 file each in a 0700 folder, read back after a restart; a corrupt one is set aside. */

const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
const dirs: string[] = [];
const services: SnapshotService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function open(dir: string) {
  const snapshots = await createSnapshotService({ dataDir: dir, log });
  services.push(snapshots);
  return { snapshots, suites: await createSuiteService({ dataDir: dir, log, snapshots }) };
}

const input = {
  suite_id: 'mine',
  name: 'Mine',
  scenarios: [{ scenario_id: 'oom', title: 'OOM', snapshot_id: 'starter-oomkilled', question: 'why?', expected: [{ finding: 'oom', any_of: ['oom'] }], difficulty: 'easy' }],
};

describe('the suite store', () => {
  it('writes 0600 files in a 0700 folder, reads them back after a restart, and sets a corrupt one aside', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-suites-'));
    dirs.push(dir);
    const first = await open(dir);
    // The starter suite's snapshots are stored on the first start, and are in use by it.
    expect((await first.snapshots.list()).snapshots.filter((s) => s.snapshot_id.startsWith('starter-'))).toHaveLength(starterSuite().snapshots.length);
    expect(first.snapshots.usedBy('starter-oomkilled')).toEqual(['suite starter']);
    await first.suites.create('default', input);
    expect(first.snapshots.usedBy('starter-oomkilled')).toEqual(['suite mine', 'suite starter']);
    const file = path.join(dir, 'suites', 'mine.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'suites'))).mode & 0o777).toBe(0o700);
    await services.splice(0)[0]?.close();

    await writeFile(path.join(dir, 'suites', 'broken.json'), '{"suite_id": "broken", "na', { mode: 0o600 });
    const second = await open(dir);
    expect((await second.suites.list()).suites.map((s) => s.suite_id)).toEqual(['starter', 'mine']);
    expect((await second.suites.get('mine')).scenarios[0]?.scenario_id).toBe('oom');
    expect(await readdir(path.join(dir, 'suites'))).toEqual(['mine.json']);
    expect((await readdir(path.join(dir, 'corrupt'))).some((f) => f.startsWith('broken.json'))).toBe(true);
    // Other tenants may not write.
    await expect(second.suites.create('acme', { ...input, suite_id: 'theirs' })).rejects.toMatchObject({ status: 403 });
    await expect(second.suites.delete('default', 'starter')).rejects.toMatchObject({ status: 409, code: 'suite_read_only' });
  });
});
