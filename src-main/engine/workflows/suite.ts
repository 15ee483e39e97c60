import type { AgentResult, JudgeVerdict, Scenario, ScenarioResult, Suite, SuiteRequest, SuiteResult, ValidationIssue } from '../../../shared';
import { judgeAnswer, JudgeOutputError } from '../../suites/judge';
import { scoreAnswer } from '../../../shared/scoring';
import { summarise } from '../../suites/summary';
import { elapsedMs, errorMessageOf } from '../timed';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import { askAgent, type AgentWorkflowDeps } from './agentic-agent';
import type { LlmBackend } from '../../llm/backend-port';
import { agentBackendUrl, backendUrlIssues, llmClient, type BackendTarget } from './backend';
import { runOnMachine } from './machine-phases';
import { withSnapshotServed } from './cluster';
import { marketplaceIssues, recoverInstances, type MarketplaceDeps, type ProvisionedInstance } from './marketplace-instance';

/** Where the workflow finds a suite by id (the suite service); undefined = no such suite. */
export type SuiteSource = { find(suiteId: string): Promise<Suite | undefined> };

export type SuiteWorkflowDeps = AgentWorkflowDeps & MarketplaceDeps & { suites: SuiteSource };

/** An answer is kept whole in the result; the `scenario.scored` event carries this much of it, so a crash keeps most of it. */
const EVENT_ANSWER_CHARS = 4000;

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
      const issues = [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request)];
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
  const { value: results, backend, phases, provisioned, account } = await runOnMachine(ctx, deps, request, {
    phase: 'analysis',
    // A judge on the suite's own machine needs its model there too.
    alsoPull: request.judge && !request.judge.backend_url ? [request.judge.model] : [],
    run: async (suiteTarget, instance, suiteBackend) => {
      const scored: ScenarioResult[] = [];
      const total = scenarios.length * request.repeat;
      let index = 0;
      for (const scenario of scenarios) {
        for (let repeat = 1; repeat <= request.repeat; repeat++) {
          index++;
          scored.push(await runScenario(ctx, deps, { scenario, run: repeat, index, total, target: suiteTarget, backend: suiteBackend, instance }));
        }
      }
      return scored;
    },
  });
  const costUsd = provisioned ? account.cost.cost_usd : 0;
  return {
    suite_id: suite.suite_id,
    agent: request.agent,
    model: request.model,
    backend_url: backend.baseUrl,
    scenarios: results,
    summary: summarise(results, costUsd),
    phases,
    ...account,
    cost: provisioned ? account.cost : null,
  };
}

type ScenarioRun = { scenario: Scenario; run: number; index: number; total: number; target: BackendTarget; backend: LlmBackend; instance: ProvisionedInstance | null };

/** One scenario on its own served snapshot: ask, score, judge if asked. An agent's failure is the scenario's, not the suite's. */
async function runScenario(ctx: JobContext<'suite'>, deps: SuiteWorkflowDeps, params: ScenarioRun): Promise<ScenarioResult> {
  const { request } = ctx;
  const { scenario, run, index, total } = params;
  const labels = { scenario_id: scenario.scenario_id, run, index, total, snapshot_id: scenario.snapshot_id };
  const progress = { detail: `scenario ${index} of ${total}: ${scenario.title}`, percent: Math.round(((index - 1) / total) * 100) };
  await ctx.setProgress('analysis', progress.detail, progress.percent);
  await ctx.emit({ event: 'scenario.started', status: 'started', message: `${scenario.title}${request.repeat > 1 ? ` (run ${run} of ${request.repeat})` : ''}`, labels });
  const t0 = performance.now();
  let answer: AgentResult | null = null;
  let error: string | null = null;
  try {
    answer = await withSnapshotServed(ctx, deps.snapshots, scenario.snapshot_id, (lease) =>
      askAgent(ctx, deps, {
        agent: request.agent,
        question: scenario.question,
        model: request.model,
        kubeconfig: lease.kubeconfigPath,
        backendUrl: agentBackendUrl(params.target),
        backendType: request.backend_type,
        backendApi: params.backend.api,
        backendApiKey: params.target.apiKey,
        progress,
      }),
    );
  } catch (err) {
    // Cancel, shutdown or the spend limit stop the suite; anything else fails this scenario only.
    if (ctx.signal.aborted) throw err;
    error = errorMessageOf(err);
  }
  const durationMs = elapsedMs(t0);
  const text = answer?.answer ?? '';
  const score = scoreAnswer(text, scenario.expected, scenario.must_not);
  const judge = request.judge && answer ? await judgeScenario(ctx, scenario, text, params) : null;
  const result: ScenarioResult = {
    scenario_id: scenario.scenario_id,
    run,
    passed: error === null && score.passed,
    score: error === null ? score.score : 0,
    matched: score.matched,
    missed: score.missed,
    must_not_matched: score.must_not_matched,
    ...(request.judge ? { judge } : {}),
    answer: text,
    duration_ms: durationMs,
    prompt_tokens: answer?.metadata.prompt_tokens ?? null,
    completion_tokens: answer?.metadata.completion_tokens ?? null,
    tool_calls: answer?.metadata.tool_calls ?? null,
    ...(error !== null ? { error } : {}),
  };
  // Everything a page (or a crash) needs to show the row: the result's fields as labels.
  await ctx.emit({
    event: 'scenario.scored',
    status: error === null ? 'ok' : 'error',
    duration_ms: durationMs,
    message: error ?? `${result.passed ? 'passed' : 'failed'}: ${score.matched.length} of ${scenario.expected.length} findings${score.must_not_matched.length ? `, ${score.must_not_matched.length} wrong claim(s)` : ''}`,
    error_type: error === null ? null : 'scenario_failed',
    labels: {
      ...labels,
      passed: result.passed,
      score: result.score,
      matched: result.matched.join('\n'),
      missed: result.missed.join('\n'),
      must_not_matched: result.must_not_matched.join('\n'),
      prompt_tokens: result.prompt_tokens,
      completion_tokens: result.completion_tokens,
      tool_calls: result.tool_calls,
      answer: text.slice(0, EVENT_ANSWER_CHARS),
      ...(judge ? { judge_score: judge.score, judge_passed: judge.passed } : {}),
    },
  });
  return result;
}

async function judgeScenario(ctx: JobContext<'suite'>, scenario: Scenario, answer: string, params: ScenarioRun): Promise<JudgeVerdict | null> {
  const judge = ctx.request.judge;
  if (!judge) return null;
  const client = judge.backend_url ? llmClient({ backendUrl: judge.backend_url }) : params.backend;
  try {
    const { output, usage } = await ctx.step(
      'judge.ask',
      () => judgeAnswer(client, { model: judge.model, question: scenario.question, expected: scenario.expected, answer, signal: ctx.signal }),
      { scenario_id: scenario.scenario_id, model: judge.model },
    );
    // On the suite's rented machine the judge's time is part of its bill: reported as its share.
    const share = !judge.backend_url && params.instance ? Math.round(params.instance.dphTotal * (usage.duration_ms / 3_600_000) * 1e6) / 1e6 : 0;
    return { ...output, model: judge.model, duration_ms: Math.round(usage.duration_ms * 10) / 10, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cost_usd: share };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // The deterministic score stands; a judge that failed is recorded and shown as missing.
    await ctx.info('judge.failed', `the judge could not grade ${scenario.scenario_id}: ${errorMessageOf(err)}${err instanceof JudgeOutputError ? ` (${err.usage.attempts} attempts)` : ''}`, { scenario_id: scenario.scenario_id });
    return null;
  }
}
