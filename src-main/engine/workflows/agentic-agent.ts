import { access, constants } from 'node:fs/promises';
import type { AgenticAgentRequest, AgentResult, BackendType, SpokenBackendApi, ValidationIssue } from '../../../shared';
import { jobErrorCodeOf } from '../../agents/errors';
import { resolveKubeconfigPath } from '../../agents/kubeconfig-path';
import type { AgentRegistry } from '../../agents/registry';
import type { SnapshotLeases } from '../../snapshots/replays';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import { agentBackendUrl, backendUrlIssues, connectBackend, requestTarget, warmupStep } from './backend';
import { snapshotIssues, withRequestCluster } from './cluster';
import { orderedEventSink } from './event-sink';

export type AgentWorkflowDeps = {
  agents: AgentRegistry;
  env: NodeJS.ProcessEnv;
  /** Serves recorded clusters to jobs that name a `snapshot`. */
  snapshots?: SnapshotLeases | undefined;
};

/** Submit-time checks shared by agentic-agent and benchmark: the agent exists, the kubeconfig is readable or the snapshot stored. */
export async function agentRequestIssues(
  deps: AgentWorkflowDeps,
  request: { agent: string; kubeconfig?: string | undefined; snapshot?: string | undefined },
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (!deps.agents.hasAgent(request.agent)) {
    issues.push({ path: 'agent', message: `unknown agent '${request.agent}'; available: ${deps.agents.listAgents().join(', ')}` });
  }
  if (request.snapshot !== undefined) return [...issues, ...(await snapshotIssues(deps.snapshots, request.snapshot))];
  const kubeconfig = resolveKubeconfigPath(request.kubeconfig ?? null, deps.env);
  try {
    await access(kubeconfig, constants.R_OK);
  } catch {
    issues.push({ path: 'kubeconfig', message: `kubeconfig not found or not readable: ${kubeconfig}` });
  }
  return issues;
}

/** Asks the chosen agent, recording its events (agent.ask, agent.tool_call, llmserver.chat, stderr). */
export async function askAgent(
  ctx: JobContext,
  deps: AgentWorkflowDeps,
  params: {
    agent: string;
    question: string;
    model: string;
    kubeconfig?: string | undefined;
    backendUrl: string;
    backendType: BackendType;
    /** The API the backend speaks (resolved: never auto) and its key, if it wants one. */
    backendApi: SpokenBackendApi;
    backendApiKey?: string | undefined;
    progress?: { detail: string; percent: number };
    sampling?: { temperature: number; seed: number | null };
  },
): Promise<AgentResult> {
  const agent = deps.agents.resolveAgent(params.agent);
  const { sink, flush } = orderedEventSink(ctx);
  await ctx.setProgress('analysis', params.progress ? `${params.progress.detail}: asking ${agent.name}` : `asking ${agent.name}`, params.progress?.percent ?? null);
  try {
    return await agent.ask(
      {
        question: params.question,
        model: params.model,
        kubeconfig: resolveKubeconfigPath(params.kubeconfig ?? null, deps.env),
        backend_type: params.backendType,
        backend_url: params.backendUrl,
        ...(params.sampling ? { temperature: params.sampling.temperature, ...(params.sampling.seed !== null ? { seed: params.sampling.seed } : {}) } : {}),
        backend_api: params.backendApi,
        backend_api_key: params.backendApiKey,
      },
      {
        signal: ctx.signal,
        onEvent: sink,
        onStderr: (line) => sink({ event: 'agent.stderr', status: 'info', message: line, duration_ms: null, error_type: null, labels: { agent: agent.name } }),
      },
    );
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // Not installed, timed out, bad output or failed: each its own error_code (shared/job-errors.ts).
    throw new JobFailure(jobErrorCodeOf(err), err instanceof Error ? err.message : String(err), { cause: err });
  } finally {
    await flush();
  }
}

/** agentic-agent (design §4): warm up if asked, then ask the chosen agent. */
export function agenticAgentWorkflow(deps: AgentWorkflowDeps): JobHandler<'agentic-agent'> {
  return {
    kind: 'agentic-agent',
    async validate(request: AgenticAgentRequest) {
      return [...backendUrlIssues(request.backend_url), ...(await agentRequestIssues(deps, request))];
    },
    async run(ctx: JobContext<'agentic-agent'>) {
      const { request } = ctx;
      // A snapshot is served for the whole job, and stopped when it ends however it ends.
      return withRequestCluster(ctx, deps.snapshots, request, async (kubeconfig) => {
        const backend = await connectBackend(ctx, requestTarget(request));
        if (request.backend_warmup) await warmupStep(ctx, backend, request.model, request.backend_warmup_timeout);
        return askAgent(ctx, deps, {
          agent: request.agent,
          question: request.question,
          model: request.model,
          kubeconfig,
          // With its credentials (if the URL has any): the agent makes its own llmserver calls.
          backendUrl: agentBackendUrl({ backendUrl: request.backend_url }),
          backendType: request.backend_type,
          backendApi: backend.api,
          backendApiKey: request.backend_api_key,
        });
      });
    },
  };
}
