import type { PhaseRecord } from '../../../shared';
import type { LeaseCost } from '../../lease/cost';
import type { ReleaseOutcome } from '../../lease/lease';
import type { RentRequest } from '../../marketplace/provisioning';
import { elapsedMs } from '../../events/timed';
import { JobFailure, type JobContext } from '../types';
import type { BackendApi } from '../../../shared';
import type { LlmBackend } from '../../llm/backend-port';
import { connectBackend, requestTarget, warmupStep, type BackendTarget } from './backend';
import type { CostMeter } from './cost-meter';
import { pullOnInstance } from './ensure-model';
import { provisionInstance, releaseJobLease, type MarketplaceDeps, type ProvisionedInstance, type SpendRequest } from './marketplace-instance';

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

/**
 * The teardown phase: releases the machine when the request asks for it or the spend limit was
 * reached (a job stopped by its limit gives the machine back even when it was meant to be kept);
 * otherwise its lease is kept: it bills until released, the ledger counting it and its limit
 * watched. An unconfirmed release is a failed phase (event + phases row), not a failed job; the
 * lease service retries it until it is confirmed. Nothing rented: the phase is skipped.
 */
async function endMachine(
  ctx: JobContext,
  deps: MarketplaceDeps,
  provisioned: ProvisionedInstance | null,
  stopInstance: boolean,
  phase: { run: <T>(name: 'teardown', fn: () => Promise<T>) => Promise<T>; skip: (name: 'teardown') => void },
): Promise<ReleaseOutcome | null> {
  if (provisioned && (stopInstance || provisioned.meter.exceeded)) {
    const outcome: { result: ReleaseOutcome | null } = { result: null };
    await phase
      .run('teardown', async () => {
        provisioned.meter.stop();
        outcome.result = await releaseJobLease(ctx, provisioned.lease, provisioned.meter.exceeded ? 'budget_exceeded' : 'teardown');
        if (!outcome.result.verified) throw new JobFailure('teardown_failed', `${outcome.result.message}; benchdesk keeps trying to release it, and it counts in the spend until it is gone`);
      })
      .catch(() => undefined);
    return outcome.result;
  }
  if (provisioned) {
    provisioned.meter.stop();
    await provisioned.lease.keep(provisioned.lease.record.max_cost_usd ?? deps.maxCostDefault?.() ?? null);
    await ctx.info('marketplace.instance.kept', `instance ${provisioned.instanceId} left running as the request asked (keep the machine after the job); it bills $${provisioned.dphTotal}/h until you release it`, {
      instance_id: provisioned.instanceId,
    });
  }
  phase.skip('teardown');
  return null;
}

/** A job's cost record, from the ledger's figures. */
export function costRecord(cost: LeaseCost) {
  return {
    dph_total: cost.dph_total,
    rented_seconds: cost.rented_seconds,
    cost_usd: cost.cost_usd,
    ...(cost.download_gb > 0 || cost.download_usd > 0 ? { download_gb: cost.download_gb, download_usd: cost.download_usd } : {}),
  };
}

/**
 * What the machine cost and how it ended, as the result records write it: the ledger's cost of the
 * lease (machine time up to the release, or up to now for a kept machine, plus its downloads), the
 * instance, and the teardown's outcome. Nothing rented: a zero cost and no instance.
 */
function machineAccount(provisioned: ProvisionedInstance | null, release: ReleaseOutcome | null) {
  const cost = provisioned ? (release?.cost ?? provisioned.lease.cost()) : null;
  return {
    cost: cost ? costRecord(cost) : { dph_total: 0, rented_seconds: 0, cost_usd: 0 },
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
      // Ollama pulls each model; a rented vLLM serves the one it started with (its download counted, no pull).
      const models = rented.server === 'vllm' ? [request.model] : [...new Set([request.model, ...(work.alsoPull ?? [])])];
      for (const model of models) await pullOnInstance(ctx, rented, model);
      // The template decides the API: Ollama's, or the OpenAI-compatible one of a rented vLLM.
      const onMachine: BackendTarget = { ...rented.target };
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
  const release = await endMachine(ctx, deps, provisioned, request.marketplace_stop_instance, { run, skip });
  if (failure) throw failure;
  // Without a failure every phase up to the work ran.
  if (!outcome) throw new Error(`the ${work.phase} phase ended without a result`);
  return { ...outcome, phases, provisioned, account: machineAccount(provisioned, release) };
}
