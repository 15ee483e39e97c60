import { randomInt } from 'node:crypto';
import type { Manifest, Scenario, ScenarioResult, Suite, SuiteRequest, SuiteResult, ValidationIssue } from '../../../shared';
import { buildManifest, readBackendFacts, BENCHDESK_VERSION } from '../../manifest/manifest';
import type { AnswerScorer } from '../../suites/score-pool';
import { summarise } from '../../suites/summary';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import type { AgentWorkflowDeps } from './agentic-agent';
import type { LlmBackend } from '../../llm/backend-port';
import { backendUrlIssues } from './backend';
import { runOnMachine } from './machine-phases';
import { marketplaceIssues, rentedServerOf, rentedTemplateIssues, type MarketplaceDeps, type ProvisionedInstance } from './marketplace-instance';
import { recoverInstances } from './recover-machine';
import { runScenario } from './suite-scenario';

/** Where the workflow finds a suite by id (the suite service): the suite, its snapshots' documents (for the manifest) and the scorer. */
export type SuiteSource = {
  find(suiteId: string): Promise<Suite | undefined>;
  /** The stored documents of these snapshots, by id (one that cannot be read is left out). */
  snapshotDocuments(ids: readonly string[]): Promise<Record<string, unknown>>;
  readonly scorer: AnswerScorer;
};

export type SuiteWorkflowDeps = AgentWorkflowDeps & MarketplaceDeps & { suites: SuiteSource };

/** The scenarios a request runs, in the suite's order (scenario_ids only filters). */
export function selectScenarios(suite: Suite, ids: readonly string[] | undefined): Scenario[] {
  if (!ids) return suite.scenarios;
  const wanted = new Set(ids);
  return suite.scenarios.filter((s) => wanted.has(s.scenario_id));
}

async function suiteIssues(deps: SuiteWorkflowDeps, request: SuiteRequest): Promise<ValidationIssue[]> {
  const suite = await deps.suites.find(request.suite_id);
  if (!suite) return [{ path: 'suite_id', message: `no suite ${request.suite_id}: list them with benchdesk suites list` }];
  const issues: ValidationIssue[] = [];
  const known = new Set(suite.scenarios.map((s) => s.scenario_id));
  (request.scenario_ids ?? []).forEach((id, i) => {
    if (!known.has(id)) issues.push({ path: `scenario_ids.${i}`, message: `suite ${suite.suite_id} has no scenario ${id}; it has: ${[...known].join(', ')}` });
  });
  for (const scenario of selectScenarios(suite, request.scenario_ids)) {
    if (!deps.snapshots || !(await deps.snapshots.has(scenario.snapshot_id))) {
      issues.push({ path: 'suite_id', message: `scenario ${scenario.scenario_id} runs on snapshot ${scenario.snapshot_id}, which is not stored` });
    }
  }
  return issues;
}

/**
 * suite (design §12): provision once (an existing llmserver or one rented machine), warm up once,
 * ask every scenario (× repeat) on its own served snapshot, one after another, scoring each as it
 * finishes, then tear down once. The money rules are the benchmark's: one machine, its running
 * cost and spend limit, and its release on success, failure and cancel (and after a crash).
 */
export function suiteWorkflow(deps: SuiteWorkflowDeps): JobHandler<'suite'> {
  return {
    kind: 'suite',
    async validate(request) {
      const issues = [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request), ...(await rentedTemplateIssues(deps, request))];
      // A rented vLLM serves the one model it starts with: a judge of another model needs its own server.
      if (request.marketplace && rentedServerOf(request) === 'vllm' && request.judge && !request.judge.backend_url && request.judge.model !== request.model) {
        issues.push({ path: 'judge.backend_url', message: `a rented vLLM machine serves only ${request.model} (the model it starts with): give the judge its own backend_url, or judge with ${request.model}` });
      }
      if (request.judge?.backend_url) issues.push(...backendUrlIssues(request.judge.backend_url).map((i) => ({ ...i, path: 'judge.backend_url' })));
      if (!deps.agents.hasAgent(request.agent)) issues.push({ path: 'agent', message: `unknown agent '${request.agent}'; available: ${deps.agents.listAgents().join(', ')}` });
      return [...issues, ...(await suiteIssues(deps, request))];
    },
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
    run: (ctx) => runSuite(ctx, deps),
  };
}

async function runSuite(ctx: JobContext<'suite'>, deps: SuiteWorkflowDeps): Promise<SuiteResult> {
  const { request } = ctx;
  const suite = await deps.suites.find(request.suite_id);
  if (!suite) throw new JobFailure('suite_not_found', `no suite ${request.suite_id} (it was deleted after the job was accepted)`);
  const scenarios = selectScenarios(suite, request.scenario_ids);
  const startedAt = new Date().toISOString();
  const baseSeed = request.seed ?? (request.temperature > 0 ? randomInt(0, 2 ** 31 - 1) : null);
  const { value, backend, phases, provisioned, account } = await runOnMachine(ctx, deps, request, {
    phase: 'analysis',
    // A judge on the suite's own machine needs its model there too.
    alsoPull: request.judge && !request.judge.backend_url ? [request.judge.model] : [],
    run: async (suiteTarget, instance, suiteBackend) => {
      const manifest = await suiteManifest(ctx, deps, { suite, scenarios, backend: suiteBackend, instance, seed: baseSeed, startedAt });
      const scored: ScenarioResult[] = [];
      const total = scenarios.length * request.repeat;
      let index = 0;
      for (const scenario of scenarios) {
        for (let run = 1; run <= request.repeat; run++) {
          index++;
          const seed = seedOfRun(baseSeed, request.temperature, run);
          scored.push(await runScenario(ctx, { ...deps, scorer: deps.suites.scorer }, { scenario, run, index, total, target: suiteTarget, backend: suiteBackend, instance, seed }));
        }
      }
      return { scored, manifest };
    },
  });
  const costUsd = provisioned ? account.cost.cost_usd : 0;
  return {
    suite_id: suite.suite_id,
    agent: request.agent,
    model: request.model,
    backend_url: backend.baseUrl,
    scenarios: value.scored,
    summary: summarise(value.scored, costUsd),
    phases,
    ...account,
    cost: provisioned ? account.cost : null,
    manifest: value.manifest,
  };
}

/** With temperature > 0 each repeat gets its own seed (base + run − 1); at temperature 0 every run sends the base seed, if any. */
export function seedOfRun(base: number | null, temperature: number, run: number): number | null {
  if (base === null) return null;
  return temperature > 0 ? (base + run - 1) % 2 ** 31 : base;
}

type ManifestParts = { suite: Suite; scenarios: readonly Scenario[]; backend: LlmBackend; instance: ProvisionedInstance | null; seed: number | null; startedAt: string };

/** The run's manifest (design §12b): what it ran on, with hashes of the suite and the snapshots it read. */
async function suiteManifest(ctx: JobContext<'suite'>, deps: SuiteWorkflowDeps, parts: ManifestParts): Promise<Manifest> {
  const { request } = ctx;
  const backend = await readBackendFacts(parts.backend, request.model, parts.backend.api, ctx.signal);
  const agent = deps.agents.resolveAgent(request.agent);
  const agentVersion =
    request.agent === 'builtin' ? BENCHDESK_VERSION : await agent.info({ signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(10_000)]) }).then((i) => i.version, () => null);
  const offer = parts.instance?.offer;
  return buildManifest({
    suite: parts.suite,
    snapshots: await deps.suites.snapshotDocuments([...new Set(parts.scenarios.map((s) => s.snapshot_id))]),
    model: request.model,
    backend,
    agent: { name: request.agent, version: agentVersion },
    temperature: request.temperature,
    seed: parts.seed,
    template: request.marketplace ? (parts.instance ? { hash: parts.instance.template.hash_id, name: parts.instance.template.name } : { hash: request.template_hash ?? null, name: null }) : null,
    machine: parts.instance
      ? {
          instance_id: parts.instance.instanceId,
          offer_id: offer?.id ?? null,
          gpu_name: offer?.gpu_name ?? null,
          num_gpus: offer?.num_gpus ?? null,
          dph_at_rent: parts.instance.dphTotal,
          download_usd_per_gb: parts.instance.inetDownCost,
        }
      : null,
    request: { ...request } as Record<string, unknown>,
    started_at: parts.startedAt,
  });
}

