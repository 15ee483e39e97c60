import type { BenchmarkRequest, BenchmarkResult } from '../../../shared';
import type { JobContext, JobHandler } from '../types';
import { agentRequestIssues, askAgent, type AgentWorkflowDeps } from './agentic-agent';
import { agentBackendUrl, backendUrlIssues } from './backend';
import { withRequestCluster } from './cluster';
import { runOnMachine } from './machine-phases';
import { marketplaceIssues, rentedTemplateIssues, type MarketplaceDeps } from './marketplace-instance';
import { recoverInstances } from './recover-machine';

/**
 * benchmark (design §4): provision → warmup → analysis → teardown, each timed. Teardown runs on
 * success, failure and cancellation; its failure is recorded (event + result) and never replaces
 * the agent's answer.
 */
export function benchmarkWorkflow(deps: AgentWorkflowDeps & MarketplaceDeps): JobHandler<'benchmark'> {
  return {
    kind: 'benchmark',
    async validate(request: BenchmarkRequest) {
      return [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request), ...(await rentedTemplateIssues(deps, request)), ...(await agentRequestIssues(deps, request))];
    },
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
    // A snapshot is served from the start (a deleted one fails the job before anything is rented) to the end.
    run: (ctx: JobContext<'benchmark'>) => withRequestCluster(ctx, deps.snapshots, ctx.request, (kubeconfig) => runBenchmark(ctx, kubeconfig)),
  };

  async function runBenchmark(ctx: JobContext<'benchmark'>, kubeconfig: string | undefined): Promise<BenchmarkResult> {
    const { request } = ctx;
    const { value: answer, backend, phases, provisioned, account } = await runOnMachine(ctx, deps, request, {
      phase: 'analysis',
      run: (machine, _instance, client) =>
        askAgent(ctx, deps, {
          agent: request.agent,
          question: request.question,
          model: request.model,
          kubeconfig,
          backendUrl: agentBackendUrl(machine),
          backendType: request.backend_type,
          backendApi: client.api,
          backendApiKey: machine.apiKey,
        }),
    });
    return {
      ...answer,
      model_name: request.model,
      backend_url: backend.baseUrl,
      contract_id: provisioned?.instanceId ?? null,
      phases,
      ...account,
    };
  }
}
