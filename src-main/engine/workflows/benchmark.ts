import type { BenchmarkRequest } from '../../../shared';
import type { ReleaseResult } from '../../marketplace/provisioning';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import { agentRequestIssues, askAgent, type AgentWorkflowDeps } from './agentic-agent';
import { agentBackendUrl, backendUrlIssues, llmClient, warmupStep, type BackendTarget } from './backend';
import { ensureModel } from './llm-instance';
import {
  marketplaceIssues,
  provisionInstance,
  recoverInstances,
  releaseJobInstance,
  type MarketplaceDeps,
  type ProvisionedInstance,
} from './marketplace-instance';

type PhaseRecord = { name: string; status: 'ok' | 'error' | 'skipped'; started_at: string; duration_ms: number };

/** Each phase is a timed `phase.<name>` step and a row of the result's `phases`. */
function phaseRunner(ctx: JobContext) {
  const phases: PhaseRecord[] = [];
  async function run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    await ctx.setProgress(name);
    try {
      const value = await ctx.step(`phase.${name}`, fn);
      phases.push({ name, status: 'ok', started_at: startedAt, duration_ms: Math.round(performance.now() - t0) });
      return value;
    } catch (err) {
      phases.push({ name, status: 'error', started_at: startedAt, duration_ms: Math.round(performance.now() - t0) });
      throw err;
    }
  }
  function skip(name: string): void {
    phases.push({ name, status: 'skipped', started_at: new Date().toISOString(), duration_ms: 0 });
  }
  return { phases, run, skip };
}

/** Destroy-and-verify; a second full round when the first could not confirm the release. */
async function teardown(ctx: JobContext, deps: MarketplaceDeps, instance: ProvisionedInstance): Promise<ReleaseResult> {
  let result = await releaseJobInstance(ctx, deps, instance.instanceId);
  if (!result.verified) {
    await ctx.info('marketplace.instance.destroy', `retrying the release of instance ${instance.instanceId}: ${result.message}`, { instance_id: instance.instanceId });
    result = await releaseJobInstance(ctx, deps, instance.instanceId);
  }
  return result;
}

/**
 * benchmark (design §4): provision → warmup → analysis → teardown, each timed. Teardown runs on
 * success, failure and cancellation; its failure is recorded (event + result) and never replaces
 * the agent's answer.
 */
export function benchmarkWorkflow(deps: AgentWorkflowDeps & MarketplaceDeps): JobHandler<'benchmark'> {
  return {
    kind: 'benchmark',
    async validate(request: BenchmarkRequest) {
      return [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request), ...(await agentRequestIssues(deps, request))];
    },
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
    async run(ctx: JobContext<'benchmark'>) {
      const { request } = ctx;
      const { phases, run, skip } = phaseRunner(ctx);
      let instance: ProvisionedInstance | null = null;
      let target: BackendTarget | null = null;
      let answer: Record<string, unknown> | null = null;
      let failure: unknown = null;
      try {
        target = await run('provision', async () => {
          // The URL as given (credentials included): llmClient splits them off into a header.
          if (!request.marketplace) return { backendUrl: request.backend_url ?? '' };
          instance = await provisionInstance(ctx, deps, { ...request }, request.marketplace_stop_instance);
          await ensureModel(ctx, llmClient(instance.target), request.model);
          return instance.target;
        });
        const client = llmClient(target);
        if (request.backend_warmup) await run('warmup', () => warmupStep(ctx, client, request.model, request.backend_warmup_timeout));
        else skip('warmup');
        const agentUrl = agentBackendUrl(target);
        answer = await run('analysis', () =>
          askAgent(ctx, deps, { agent: request.agent, question: request.question, model: request.model, kubeconfig: request.kubeconfig, backendUrl: agentUrl }),
        );
      } catch (err) {
        failure = err;
      }

      const provisioned = instance as ProvisionedInstance | null;
      let release: ReleaseResult | null = null;
      let releasedAt = Date.now();
      if (provisioned && request.marketplace_stop_instance) {
        const outcome: { result: ReleaseResult | null } = { result: null };
        // An unconfirmed release is a failed phase (event + phases row), but not a failed job.
        await run('teardown', async () => {
          outcome.result = await teardown(ctx, deps, provisioned);
          releasedAt = Date.now();
          if (!outcome.result.verified) throw new JobFailure('teardown_failed', outcome.result.message);
        }).catch(() => undefined);
        release = outcome.result;
      } else {
        if (provisioned) {
          await ctx.info('marketplace.instance.kept', `instance ${provisioned.instanceId} left running as requested (marketplace_stop_instance: false); it bills $${provisioned.dphTotal}/h until you destroy it`, {
            instance_id: provisioned.instanceId,
          });
        }
        skip('teardown');
      }
      if (failure) throw failure;

      const rentedSeconds = provisioned ? Math.max(0, (releasedAt - Date.parse(provisioned.rentedAt)) / 1000) : 0;
      const dph = provisioned?.dphTotal ?? 0;
      const offer = (provisioned?.offer ?? {}) as { gpu_name?: string; num_gpus?: number };
      return {
        ...(answer ?? {}),
        model_name: request.model,
        backend_url: target ? llmClient(target).baseUrl : null,
        contract_id: provisioned?.instanceId ?? null,
        phases,
        cost: { dph_total: dph, rented_seconds: Math.round(rentedSeconds), cost_usd: Math.round(dph * (rentedSeconds / 3600) * 10_000) / 10_000 },
        instance: provisioned
          ? { id: provisioned.instanceId, gpu_name: offer.gpu_name ?? null, num_gpus: offer.num_gpus ?? null, released: release?.released ?? false }
          : null,
        teardown: release ? { released: release.released, verified: release.verified, message: release.message } : null,
      };
    },
  };
}
