import type { InstanceClassification, JobRecord, MarketplaceInstanceEntry } from '../../shared';
import { leaseCost } from '../lease/cost';
import { machineUsd, roundUsd } from '../lease/cost';
import type { LeaseRecord } from '../lease/lease-record';
import type { ParsedLabel } from '../marketplace/labels';
import type { VastApi } from '../marketplace/vast-client';
import type { MarketplaceInstance } from '../marketplace/vast-wire';

/**
 * One row of the machines list (GET /v1/marketplace/instances): whose machine it is (active, kept,
 * orphaned, another install's), and what it has cost, from the ledger when it knows the machine
 * (machine time and downloads, the one formula), else from the marketplace's own figures.
 */

/** A key that can be used, and whether it is the one in use or one a job holds. */
export type Keyed = { key: string; client: VastApi; source: 'current' | 'held' };

/** A sweep's machine: `active` while the sweep runs and holds it. */
export type SweepMachineOwner = { sweep_id: string; tenant_id: string; name: string; gpu: string; model: string | null; status: string; active: boolean };

export type Row = {
  instance: MarketplaceInstance;
  label: ParsedLabel;
  job: JobRecord | undefined;
  sweep?: SweepMachineOwner | undefined;
  entry: MarketplaceInstanceEntry;
  /** Keys that can see this machine; the one its job rented with first. */
  keys: Keyed[];
};

/** Why a machine of this install is still up, from its job (active / kept / orphaned). */
export function classifyByJob(job: JobRecord | undefined): InstanceClassification {
  if (!job) return 'orphaned';
  if (job.status === 'queued' || job.status === 'running') return 'active';
  // An llm-instance keeps the machine it rented; one on an existing backend rented nothing to keep.
  if (job.kind === 'llm-instance' && job.status === 'succeeded' && job.request.marketplace === true) return 'kept';
  // Kept on request, unless the spend limit stopped the job (its machine was due back then).
  if ((job.kind === 'benchmark' || job.kind === 'suite') && job.request.marketplace_stop_instance === false && job.error_code !== 'budget_exceeded') return 'kept';
  return 'orphaned';
}

/**
 * Whose machine this is. Ours: our install id in the label (an unknown job makes it an orphan), or
 * an older label (`benchdesk:<job_id>`) naming one of our jobs. Anything else labelled `benchdesk:`
 * is another install's: `foreign`.
 */
export function classifyMachine(label: ParsedLabel, job: JobRecord | undefined, installId: string): InstanceClassification {
  if (label.installId === installId) return classifyByJob(job);
  if (label.installId === null && job) return classifyByJob(job);
  return 'foreign';
}

/** The job's own machine (the one its record names), or one it never learnt the id of. */
export function isJobsMachine(job: JobRecord, instanceId: number): boolean {
  const recorded = job.resources?.marketplace_instance_id;
  return recorded === instanceId || recorded == null;
}

export type EntryContext = { installId: string; nowMs: number; lease: LeaseRecord | undefined; releaseError: string | undefined };

/** The list row of one machine. */
export function toEntry(instance: MarketplaceInstance, label: ParsedLabel, job: JobRecord | undefined, sweep: SweepMachineOwner | undefined, ctx: EntryContext): MarketplaceInstanceEntry {
  // A sweep's machine belongs to its sweep: active while the sweep runs and holds it, an orphan after.
  const classification = sweep ? (sweep.active ? 'active' : 'orphaned') : classifyMachine(label, job, ctx.installId);
  // Another install's job ids mean nothing here: its machine is shown by its label alone.
  const ownJob = classification === 'foreign' ? undefined : job;
  const ownResources = ownJob && ownJob.resources?.marketplace_instance_id === instance.id ? ownJob.resources : null;
  const lease = ctx.lease && ctx.lease.instance_id === instance.id ? ctx.lease : undefined;
  const { rentedAt, costUsd, downloadUsd, dph } = costOfRow(instance, ownJob, lease, ctx.nowMs);
  return {
    instance_id: instance.id,
    label: instance.label ?? '',
    job: ownJob ? { job_id: ownJob.job_id, kind: ownJob.kind, status: ownJob.status } : null,
    gpu_name: instance.gpu_name ?? null,
    num_gpus: instance.num_gpus ?? null,
    dph_total: dph,
    rented_at: rentedAt,
    cost_usd_so_far: costUsd,
    download_usd: downloadUsd ?? ownResources?.download_usd ?? null,
    state: instance.actual_status ?? null,
    classification,
    ...(sweep ? { sweep: { sweep_id: sweep.sweep_id, name: sweep.name, gpu: sweep.gpu, model: sweep.model, status: sweep.status } } : {}),
    release_error: ctx.releaseError ?? lease?.release_error ?? ownResources?.marketplace_release_error ?? null,
  };
}

/** The ledger's figures when it knows the machine; else $/h × the time since the marketplace's start date, plus the job's recorded download. */
function costOfRow(instance: MarketplaceInstance, job: JobRecord | undefined, lease: LeaseRecord | undefined, nowMs: number) {
  if (lease && lease.rented_at && lease.dph_total !== null) {
    const cost = leaseCost(lease, nowMs);
    return { rentedAt: lease.rented_at, costUsd: cost.cost_usd, downloadUsd: cost.download_usd, dph: lease.dph_total };
  }
  const startMs = instance.start_date != null ? instance.start_date * 1000 : job?.resources?.rented_at ? Date.parse(job.resources.rented_at) : null;
  const dph = instance.dph_total ?? job?.resources?.dph_total ?? null;
  const known = startMs !== null && Number.isFinite(startMs);
  const download = job?.resources?.marketplace_instance_id === instance.id ? (job.resources.download_usd ?? null) : null;
  const machine = known && dph !== null ? machineUsd(dph, startMs, nowMs) : null;
  return { rentedAt: known ? new Date(startMs).toISOString() : null, costUsd: machine === null ? null : roundUsd(machine + (download ?? 0)), downloadUsd: download, dph };
}
