import type { PhaseRecord } from '../../../shared';
import type { ReleaseResult } from '../../marketplace/provisioning';
import { elapsedMs } from '../timed';
import { JobFailure, type JobContext } from '../types';
import type { CostMeter } from './cost-meter';
import { releaseJobInstance, type MarketplaceDeps, type ProvisionedInstance } from './marketplace-instance';

/**
 * What the workflows that may rent a machine (benchmark, suite, serving-benchmark) share: timed
 * phases that report the running cost, and the teardown phase that releases the machine or says it
 * is kept and bills.
 */

type PhaseRow<P extends string> = Omit<PhaseRecord, 'name'> & { name: P };

/**
 * Each phase is a timed `phase.<name>` step and a row of the result's `phases`. While a rented
 * machine is held, each phase boundary also reports its running cost (`cost.update`).
 */
export function phaseRunner<P extends string>(ctx: JobContext, meter: () => CostMeter | null) {
  const phases: PhaseRow<P>[] = [];
  async function run<T>(name: P, fn: () => Promise<T>): Promise<T> {
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    await ctx.setProgress(name);
    await meter()?.tick(`phase:${name}:started`);
    try {
      const value = await ctx.step(`phase.${name}`, fn);
      phases.push({ name, status: 'ok', started_at: startedAt, duration_ms: elapsedMs(t0) });
      await meter()?.tick(`phase:${name}:ok`);
      return value;
    } catch (err) {
      phases.push({ name, status: 'error', started_at: startedAt, duration_ms: elapsedMs(t0) });
      throw err;
    }
  }
  function skip(name: P): void {
    phases.push({ name, status: 'skipped', started_at: new Date().toISOString(), duration_ms: 0 });
  }
  return { phases, run, skip };
}

/** Destroy-and-verify; a second full round when the first could not confirm the release. */
export async function teardown(ctx: JobContext, deps: MarketplaceDeps, instance: ProvisionedInstance): Promise<ReleaseResult> {
  let result = await releaseJobInstance(ctx, deps, instance.instanceId, instance.keyed);
  // A refused key will not be accepted a moment later: only an unconfirmed release is worth a second round.
  if (!result.verified && !result.authFailed) {
    await ctx.info('marketplace.instance.destroy', `retrying the release of instance ${instance.instanceId}: ${result.message}`, { instance_id: instance.instanceId });
    result = await releaseJobInstance(ctx, deps, instance.instanceId, instance.keyed);
  }
  return result;
}

/**
 * The teardown phase: releases the machine when the request asks for it or the spend limit was
 * reached (a job stopped by its limit gives the machine back even when it was meant to be kept);
 * otherwise says it is kept and bills until released. An unconfirmed release is a failed phase
 * (event + phases row), not a failed job. Nothing rented: the phase is skipped.
 */
export async function endMachine(
  ctx: JobContext,
  deps: MarketplaceDeps,
  provisioned: ProvisionedInstance | null,
  stopInstance: boolean,
  phase: { run: <T>(name: 'teardown', fn: () => Promise<T>) => Promise<T>; skip: (name: 'teardown') => void },
): Promise<{ release: ReleaseResult | null; releasedAt: number }> {
  let releasedAt = Date.now();
  if (provisioned && (stopInstance || provisioned.meter.exceeded)) {
    const outcome: { result: ReleaseResult | null } = { result: null };
    await phase
      .run('teardown', async () => {
        provisioned.meter.stop();
        outcome.result = await teardown(ctx, deps, provisioned);
        releasedAt = Date.now();
        if (!outcome.result.verified) throw new JobFailure('teardown_failed', outcome.result.message);
      })
      .catch(() => undefined);
    return { release: outcome.result, releasedAt };
  }
  if (provisioned) {
    provisioned.meter.stop();
    await ctx.info('marketplace.instance.kept', `instance ${provisioned.instanceId} left running as the request asked (keep the machine after the job); it bills $${provisioned.dphTotal}/h until you release it`, {
      instance_id: provisioned.instanceId,
    });
  }
  phase.skip('teardown');
  return { release: null, releasedAt };
}

/**
 * What the machine cost and how it ended, as the result records write it: $/h × the time from
 * rent to release, plus the model's download on that host (cost_usd includes it), the instance,
 * and the teardown's outcome. Nothing rented: a zero cost and no instance.
 */
export function machineAccount(provisioned: ProvisionedInstance | null, release: ReleaseResult | null, releasedAt: number) {
  const rentedSeconds = provisioned ? Math.max(0, (releasedAt - Date.parse(provisioned.rentedAt)) / 1000) : 0;
  const dph = provisioned?.dphTotal ?? 0;
  const download = provisioned?.download ?? null;
  return {
    cost: {
      dph_total: dph,
      rented_seconds: Math.round(rentedSeconds),
      cost_usd: Math.round((dph * (rentedSeconds / 3600) + (download?.usd ?? 0)) * 10_000) / 10_000,
      ...(download ? { download_gb: download.gb, ...(download.usd !== null ? { download_usd: download.usd } : {}) } : {}),
    },
    instance: provisioned ? { id: provisioned.instanceId, gpu_name: provisioned.offer.gpu_name, num_gpus: provisioned.offer.num_gpus, released: release?.released ?? false } : null,
    teardown: release ? { released: release.released, verified: release.verified, message: release.message } : null,
  };
}
