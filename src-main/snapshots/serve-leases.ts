import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DIR_MODE, FILE_MODE } from '../store/atomic-file';
import { holderAlive, ownIdentity } from '../store/data-dir-lock';

/**
 * Snapshots served by another process of this machine (`benchdesk snapshot serve`, which reads the
 * document and then serves it on its own, without holding the data dir): each holds a lease file
 * in `<data dir>/serving/`, so the app knows the snapshot is in use and refuses to delete it (409
 * naming who serves it). A lease whose process is gone (a crash, a SIGKILL) is ignored and removed.
 */

export const SERVING_DIR = 'serving';

type Lease = { snapshot_id: string; holder: string; pid: number; proc_start?: string; boot_id?: string; started_at: string };

function leaseFile(dataDir: string, snapshotId: string, pid: number): string {
  return path.join(dataDir, SERVING_DIR, `${snapshotId}.${pid}.json`);
}

/** Writes this process's lease on `snapshotId`; the function returned removes it (also done at exit). */
export async function holdServeLease(dataDir: string, snapshotId: string, holder: string): Promise<() => Promise<void>> {
  const file = leaseFile(dataDir, snapshotId, process.pid);
  const lease: Lease = { snapshot_id: snapshotId, holder, pid: process.pid, ...ownIdentity(), started_at: new Date().toISOString() };
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
  await fsp.writeFile(file, `${JSON.stringify(lease)}\n`, { mode: FILE_MODE });
  const removeAtExit = () => fs.rmSync(file, { force: true });
  process.once('exit', removeAtExit);
  return async () => {
    process.off('exit', removeAtExit);
    await fsp.rm(file, { force: true });
  };
}

function readLease(file: string): Lease | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Lease>;
    if (typeof value.pid !== 'number' || typeof value.holder !== 'string' || typeof value.snapshot_id !== 'string') return undefined;
    return value as Lease;
  } catch {
    return undefined;
  }
}

/** Who serves `snapshotId` now from another process (stale leases are removed). */
export function serveLeaseHolders(dataDir: string, snapshotId: string): string[] {
  const dir = path.join(dataDir, SERVING_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const holders: string[] = [];
  for (const name of names) {
    if (!name.startsWith(`${snapshotId}.`) || !name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const lease = readLease(file);
    if (lease?.snapshot_id === snapshotId && holderAlive(lease)) holders.push(lease.holder);
    else fs.rmSync(file, { force: true });
  }
  return holders;
}
