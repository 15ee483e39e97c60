import type { AgentResult, BenchmarkPhase, BenchmarkRequest, BenchmarkResult } from '../../../shared';
import type { JobContext, JobHandler } from '../types';
import { agentRequestIssues, askAgent, type AgentWorkflowDeps } from './agentic-agent';
import { agentBackendUrl, backendUrlIssues, llmClient, warmupStep, type BackendTarget } from './backend';
import { withRequestCluster } from './cluster';
import { pullOnInstance } from './ensure-model';
import { endMachine, machineAccount, phaseRunner } from './machine-phases';
import {
  marketplaceIssues,
  provisionInstance,
  recoverInstances,
  type MarketplaceDeps,
  type ProvisionedInstance,
} from './marketplace-instance';

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
    // A snapshot is served from the start (a deleted one fails the job before anything is rented) to the end.
    run: (ctx: JobContext<'benchmark'>) => withRequestCluster(ctx, deps.snapshots, ctx.request, (kubeconfig) => runBenchmark(ctx, kubeconfig)),
  };

  async function runBenchmark(ctx: JobContext<'benchmark'>, kubeconfig: string | undefined): Promise<BenchmarkResult> {
    const { request } = ctx;
    let instance: ProvisionedInstance | null = null;
    const { phases, run, skip } = phaseRunner<BenchmarkPhase>(ctx, () => (instance as ProvisionedInstance | null)?.meter ?? null);
    let target: BackendTarget | null = null;
    let answer: AgentResult | null = null;
    let failure: unknown = null;
    try {
      target = await run('provision', async () => {
        // The URL as given (credentials included): llmClient splits them off into a header.
        if (!request.marketplace) return { backendUrl: request.backend_url ?? '' };
        instance = await provisionInstance(ctx, deps, { ...request }, request.marketplace_stop_instance);
        await pullOnInstance(ctx, instance, request.model);
        return instance.target;
      });
      const client = llmClient(target);
      if (request.backend_warmup) await run('warmup', () => warmupStep(ctx, client, request.model, request.backend_warmup_timeout));
      else skip('warmup');
      const agentUrl = agentBackendUrl(target);
      answer = await run('analysis', async () => {
        const answered = await askAgent(ctx, deps, {
          agent: request.agent,
          question: request.question,
          model: request.model,
          kubeconfig,
          backendUrl: agentUrl,
          backendType: request.backend_type,
        });
        // The answer is paid for: from here the spend limit releases the machine, it no longer fails the job.
        (instance as ProvisionedInstance | null)?.meter.workDone();
        return answered;
      });
    } catch (err) {
      failure = err;
    }

    const provisioned = instance as ProvisionedInstance | null;
    const { release, releasedAt } = await endMachine(ctx, deps, provisioned, request.marketplace_stop_instance, { run, skip });
    if (failure) throw failure;
    // Without a failure every phase up to analysis ran, so both are set.
    if (!answer || !target) throw new Error('benchmark ended without an answer');

    const account = machineAccount(provisioned, release, releasedAt);
    return {
      ...answer,
      model_name: request.model,
      backend_url: llmClient(target).baseUrl,
      contract_id: provisioned?.instanceId ?? null,
      phases,
      ...account,
    };
  }
}
