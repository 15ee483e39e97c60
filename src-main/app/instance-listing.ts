import type { JobRecord, MarketplaceInstanceEntry } from '../../shared';
import type { Logger } from '../engine/types';
import { leaseCost } from '../lease/cost';
import type { Leases } from '../lease/leases';
import type { MarketplaceAccess } from '../marketplace/access';
import { errorMessage } from '../marketplace/events';
import type { HeldKeys } from '../marketplace/held-keys';
import { isGone } from '../marketplace/instance-status';
import { parseLabel, type ParsedLabel } from '../marketplace/labels';
import type { MarketplaceInstance } from '../marketplace/vast-wire';
import { classifyByJob, toEntry, type Keyed, type Row, type SweepMachineOwner } from './instance-entries';

/**
 * Every benchdesk machine any key can see: the key in use and every key a job holds (a key changed
 * in Settings never hides a machine that bills), each machine with its job or sweep, and the rows
 * of machines whose release is still being retried that no listing shows (they bill until
 * confirmed gone, so they stay on the list).
 */

/** Bound on one marketplace listing. */
export const LIST_TIMEOUT_MS = 120_000;

export type ListingDeps = {
  access: MarketplaceAccess;
  heldKeys: HeldKeys;
  installId: string;
  leases: Leases;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  sweepMachine?(machineId: string): Promise<SweepMachineOwner | undefined>;
  log: Logger;
  now: () => number;
};

export type Listing = { rows: Row[]; complete: boolean; errors: string[]; heldBy: Map<string, string> };

/** The key in use first, then every key a job holds (each key once). */
export async function keyring(deps: ListingDeps): Promise<{ keys: Keyed[]; heldBy: Map<string, string> }> {
  const keys: Keyed[] = [];
  const seen = new Set<string>();
  const current = deps.access.current();
  if (current) {
    keys.push({ ...current, source: 'current' });
    seen.add(current.key);
  }
  const heldBy = new Map<string, string>();
  const { held, unreadable } = await deps.heldKeys.all();
  for (const name of unreadable) deps.log.warn('a held marketplace key file cannot be read; it is ignored', { file: name });
  for (const { jobId, key } of held) {
    heldBy.set(jobId, key);
    if (seen.has(key)) continue;
    seen.add(key);
    const client = deps.access.clientFor(key);
    if (client) keys.push({ key, client, source: 'held' });
    else deps.log.warn('a job holds a marketplace key that cannot be sent (not printable ASCII); it is ignored', { job_id: jobId });
  }
  return { keys, heldBy };
}

/** The sweep of a machine of this install that no job names. */
export async function ownSweep(deps: ListingDeps, label: ParsedLabel): Promise<SweepMachineOwner | undefined> {
  if (label.installId !== deps.installId || !deps.sweepMachine) return undefined;
  return deps.sweepMachine(label.jobId).catch(() => undefined);
}

/** A row for one machine: its job or sweep, and its entry (with the ledger's cost when it knows it). */
export async function rowOf(deps: ListingDeps, instance: MarketplaceInstance, label: ParsedLabel, keys: Keyed[], releaseError?: string): Promise<Row> {
  const job = await deps.getJob(label.jobId);
  const sweep = job ? undefined : await ownSweep(deps, label);
  const lease = deps.leases.ledger.byInstance(instance.id);
  return { instance, label, job, sweep, keys, entry: toEntry(instance, label, job, sweep, { installId: deps.installId, nowMs: deps.now(), lease, releaseError }) };
}

/** Every benchdesk machine any of the keys can see. `complete`: every key listed without error. null: no key at all. */
export async function listAll(deps: ListingDeps, releaseErrors: ReadonlyMap<number, string>): Promise<Listing | null> {
  const { keys, heldBy } = await keyring(deps);
  if (keys.length === 0) return null;
  const byId = new Map<number, Row>();
  const errors: string[] = [];
  let firstError: unknown = null;
  let listedBy = 0;
  for (const keyed of keys) {
    let found: MarketplaceInstance[];
    try {
      found = await keyed.client.listInstances({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
      listedBy++;
    } catch (err) {
      firstError ??= err;
      errors.push(`${keyed.source === 'current' ? 'the key in use' : 'a key a job rented with'}: ${errorMessage(err)}`);
      continue;
    }
    for (const instance of found) {
      const label = parseLabel(instance.label);
      if (!label || isGone(instance)) continue;
      const row = byId.get(instance.id);
      if (row) row.keys.push(keyed);
      else byId.set(instance.id, await rowOf(deps, instance, label, [keyed], releaseErrors.get(instance.id)));
    }
  }
  if (listedBy === 0) throw firstError;
  const rows = [...byId.values()];
  // The key a job rented with goes first: it is the one that can certainly release its machine.
  for (const row of rows) {
    const own = heldBy.get(row.label.jobId);
    row.keys.sort((a, b) => Number(b.key === own) - Number(a.key === own));
  }
  return { rows, complete: errors.length === 0, errors, heldBy };
}

/**
 * Machines whose release the ledger is still retrying but that no listing showed (their key was
 * refused, or the listing failed): they may still bill, so they are listed from the ledger.
 */
export async function pendingReleases(deps: ListingDeps, listed: ReadonlySet<number>): Promise<MarketplaceInstanceEntry[]> {
  const out: MarketplaceInstanceEntry[] = [];
  for (const lease of deps.leases.ledger.open()) {
    if (lease.state !== 'releasing' || lease.instance_id === null || listed.has(lease.instance_id)) continue;
    const job = lease.owner.kind === 'job' ? await deps.getJob(lease.owner.job_id) : undefined;
    const cost = leaseCost(lease, deps.now());
    out.push({
      instance_id: lease.instance_id,
      label: lease.label,
      job: job ? { job_id: job.job_id, kind: job.kind, status: job.status } : null,
      gpu_name: lease.offer?.gpu_name ?? null,
      num_gpus: lease.offer?.num_gpus ?? null,
      dph_total: lease.dph_total,
      rented_at: lease.rented_at,
      cost_usd_so_far: cost.cost_usd,
      download_usd: cost.download_usd,
      state: 'release pending',
      classification: lease.owner.kind === 'sweep' ? 'orphaned' : classifyByJob(job) === 'active' ? 'active' : 'orphaned',
      ...(lease.owner.kind === 'sweep' ? { sweep: { sweep_id: lease.owner.sweep_id, name: lease.owner.sweep_id, gpu: lease.owner.gpu, model: null, status: 'releasing' } } : {}),
      release_error: lease.release_error ?? 'its release is not confirmed yet; benchdesk keeps trying',
    });
  }
  return out;
}
