import type { PhaseRecord } from '../../../shared';
import type { ReleaseResult, RentRequest } from '../../marketplace/provisioning';
import { elapsedMs } from '../timed';
import { JobFailure, type JobContext } from '../types';
import type { BackendApi } from '../../../shared';
import type { LlmBackend } from '../../llm/backend-port';
import { connectBackend, requestTarget, warmupStep, type BackendTarget } from './backend';
import type { CostMeter } from './cost-meter';
import { pullOnInstance } from './ensure-model';
import { provisionInstance, releaseJobInstance, type MarketplaceDeps, type ProvisionedInstance, type SpendRequest } from './marketplace-instance';

/**
 * What the workflows that may rent a machine (benchmark, suite, serving-benchmark) share, as one
 * call (runOnMachine): timed phases that report the running cost, the provision and warm-up, the
 * teardown phase that releases the machine or says it is kept and bills, and the machine's account.
 */

type PhaseRow<P extends string> = Omit<PhaseRecord, 'name'> & { name: P };

/**
 * Each phase is a timed `phase.<name>` step and a row of the result's `phases`. While a rented
 * machine is held, each phase boundary also reports its running cost (`cost.update`).
 */
function phaseRunner<P extends string>(ctx: JobContext, meter: () => CostMeter | null) {
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
async function teardown(ctx: JobContext, deps: MarketplaceDeps, instance: ProvisionedInstance): Promise<ReleaseResult> {
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
async function endMachine(
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
function machineAccount(provisioned: ProvisionedInstance | null, release: ReleaseResult | null, releasedAt: number) {
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

/** The request fields a job that runs on an llmserver, existing or rented, has. */
export type MachineJobRequest = RentRequest &
  SpendRequest & {
    model: string;
    marketplace: boolean;
    backend_url?: string | null | undefined;
    backend_api?: BackendApi | undefined;
    backend_api_key?: string | undefined;
    marketplace_stop_instance: boolean;
    backend_warmup: boolean;
    backend_warmup_timeout: number;
  };

/**
 * A job's run on its llmserver, phase by phase: provision (the given URL, its API detected when
 * `auto`, or rent a machine and pull the model and `alsoPull`), warm up, then `work` as its own
 * phase with the backend's client. Once the work is done the
 * spend limit releases the machine rather than failing the job. Whatever happened, the teardown
 * phase then releases the machine (or says it is kept), and a failure is rethrown after it.
 */
export async function runOnMachine<W extends string, T>(
  ctx: JobContext,
  deps: MarketplaceDeps,
  request: MachineJobRequest,
  work: {
    phase: W;
    alsoPull?: readonly string[];
    /** Checks made once the backend answers and before the warm-up (in the provision phase): a refusal here loads nothing. */
    prepare?: (backend: LlmBackend) => Promise<void>;
    run: (target: BackendTarget, instance: ProvisionedInstance | null, backend: LlmBackend) => Promise<T>;
  },
) {
  let instance: ProvisionedInstance | null = null;
  const { phases, run, skip } = phaseRunner<'provision' | 'warmup' | 'teardown' | W>(ctx, () => (instance as ProvisionedInstance | null)?.meter ?? null);
  let outcome: { target: BackendTarget; backend: LlmBackend; value: T } | null = null;
  let failure: unknown = null;
  try {
    const { target, backend } = await run('provision', async () => {
      // The URL as given (credentials included): the client splits them off into a header.
      if (!request.marketplace) {
        const given = requestTarget(request);
        const connected = await connectBackend(ctx, given);
        await work.prepare?.(connected);
        return { target: given, backend: connected };
      }
      const rented = await provisionInstance(ctx, deps, { ...request }, request.marketplace_stop_instance);
      instance = rented;
      for (const model of new Set([request.model, ...(work.alsoPull ?? [])])) await pullOnInstance(ctx, rented, model);
      // A rented machine runs Ollama (its template); renting an OpenAI server comes with the lease.
      const onMachine: BackendTarget = { ...rented.target, api: 'ollama' };
      const connected = await connectBackend(ctx, onMachine);
      await work.prepare?.(connected);
      return { target: onMachine, backend: connected };
    });
    if (request.backend_warmup) await run('warmup', () => warmupStep(ctx, backend, request.model, request.backend_warmup_timeout));
    else skip('warmup');
    const value = await run(work.phase, async () => {
      const done = await work.run(target, instance as ProvisionedInstance | null, backend);
      // The work is paid for: from here the spend limit releases the machine, it no longer fails the job.
      (instance as ProvisionedInstance | null)?.meter.workDone();
      return done;
    });
    outcome = { target, backend, value };
  } catch (err) {
    failure = err;
  }
  const provisioned = instance as ProvisionedInstance | null;
  const { release, releasedAt } = await endMachine(ctx, deps, provisioned, request.marketplace_stop_instance, { run, skip });
  if (failure) throw failure;
  // Without a failure every phase up to the work ran.
  if (!outcome) throw new Error(`the ${work.phase} phase ended without a result`);
  return { ...outcome, phases, provisioned, account: machineAccount(provisioned, release, releasedAt) };
}
