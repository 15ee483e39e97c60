import type { JobRecord } from '../../../shared';
import { isGone } from '../../marketplace/instance-status';
import { findLabelledInstances, labelsOfJob } from '../../marketplace/provisioning';
import type { MarketplaceInstance } from '../../marketplace/vast-wire';
import { isOpen } from '../../lease/lease-record';
import type { RecoveryContext } from '../types';
import { leaseEvents, recordRelease, spendLimit, type MarketplaceDeps } from './marketplace-instance';

/**
 * Crash recovery of a job that was running with a rented machine (its `recover` hook): through the
 * job's lease, the machine is released (or, kept on request, left billing and watched), and a rent
 * whose answer never came is hunted by its label for minutes, whatever the auto-release setting.
 * A job from before the ledger has no lease: its recorded instance, or the one carrying its label,
 * is taken into the ledger and settled the same way.
 */
export async function recoverInstances(job: JobRecord, ctx: RecoveryContext, deps: MarketplaceDeps): Promise<void> {
  if (deps.leases.ledger.has(job.job_id)) return recoverJobLease(job, ctx, deps);
  return recoverBeforeLedger(job, ctx, deps);
}

async function recoverJobLease(job: JobRecord, ctx: RecoveryContext, deps: MarketplaceDeps): Promise<void> {
  const record = deps.leases.ledger.get(job.job_id);
  if (!record || !isOpen(record.state)) return;
  const id = record.instance_id;
  const kept = record.state === 'kept' || !record.release_when_interrupted;
  if (id === null) {
    await ctx.emit({ event: 'job.recover', status: 'info', message: `the server stopped while this job was renting a machine: benchdesk looks for its label ${record.label} and releases what it finds`, labels: { label: record.label } });
  } else if (kept) {
    await ctx.emit({ event: 'marketplace.instance.kept', status: 'info', message: `instance ${id} was left running after the interruption, as the request asked (keep the machine after the job); it is still billing until you release it`, labels: { instance_id: id } });
  } else {
    await ctx.emit({ event: 'job.recover', status: 'info', message: `the server stopped while this job held instance ${id}: releasing it`, labels: { instance_id: id } });
  }
  const outcome = await deps.leases.recoverLease(job.job_id, leaseEvents(ctx));
  const lease = await deps.leases.get(job.job_id);
  if (lease && outcome !== null && typeof outcome === 'object') {
    await recordRelease(ctx, lease, outcome);
    ctx.logger.info('released an instance after an interruption', { instance_id: id, released: outcome.released, verified: outcome.verified });
  }
}

/** A job of an earlier version: its machine by the recorded id, or by its label; taken into the ledger. */
async function recoverBeforeLedger(job: JobRecord, ctx: RecoveryContext, deps: MarketplaceDeps): Promise<void> {
  const resources = job.resources ?? {};
  if (resources.marketplace_instance_released) return;
  const keyed = await deps.leases.keyFor(job.job_id);
  if (!keyed) return;
  let found: MarketplaceInstance[] = [];
  if (resources.marketplace_instance_id != null) {
    const instance = await keyed.client.showInstance(resources.marketplace_instance_id, { signal: AbortSignal.timeout(60_000) });
    found = instance && !isGone(instance) ? [instance] : [];
  } else if (job.request.marketplace === true) {
    found = await findLabelledInstances(keyed.client, labelsOfJob(deps.leases.deps.installId, job.job_id), AbortSignal.timeout(60_000));
  }
  const keep = resources.marketplace_stop_instance === false;
  for (const instance of found) {
    const lease = await deps.leases.adopt(instance, {
      owner: { kind: 'job', job_id: job.job_id, job_kind: job.kind },
      tenantId: job.tenant_id,
      maxCostUsd: spendLimit(deps, job.request as { max_cost_usd?: number }),
      releaseWhenInterrupted: !keep,
      keyed,
    });
    if (keep) {
      await ctx.emit({ event: 'marketplace.instance.kept', status: 'info', message: `instance ${instance.id} was left running after the interruption, as the request asked (keep the machine after the job); it is still billing until you release it`, labels: { instance_id: instance.id } });
      await lease.keep(lease.record.max_cost_usd);
      continue;
    }
    await ctx.emit({ event: 'job.recover', status: 'info', message: `the server stopped while this job held instance ${instance.id}: releasing it`, labels: { instance_id: instance.id } });
    const outcome = await lease.release('interrupted', leaseEvents(ctx));
    await recordRelease(ctx, lease, outcome);
  }
  if (found.length === 0 && resources.marketplace_instance_id != null) await ctx.setResources({ marketplace_instance_released: true, marketplace_release_error: null });
}
