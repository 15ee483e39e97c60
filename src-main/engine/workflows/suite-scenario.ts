import type { AgentResult, JudgeVerdict, Scenario, ScenarioResult, SuiteRequest } from '../../../shared';
import type { ScenarioScore } from '../../../shared/scenario-score';
import { judgeAnswer, JudgeOutputError } from '../../suites/judge';
import type { AnswerScorer } from '../../suites/score-pool';
import { machineUsd } from '../../lease/cost';
import { elapsedMs, errorMessageOf } from '../../events/timed';
import type { JobContext } from '../types';
import { askAgent, type AgentWorkflowDeps } from './agentic-agent';
import type { LlmBackend } from '../../llm/backend-port';
import { agentBackendUrl, llmClient, type BackendTarget } from './backend';
import { withSnapshotServed } from './cluster';
import type { ProvisionedInstance } from './marketplace-instance';

/**
 * One scenario of a suite run (design §12, §12b): ask the agent on the scenario's own served
 * snapshot, score the answer by the rules (off the main thread, score-pool.ts), and when a judge
 * is named let it decide. An agent, scoring or judge failure is this run's `error` (counted apart
 * from the failures in the summary), never the suite's.
 */

/** An answer is kept whole in the result; the `scenario.scored` event carries this much of it, so a crash keeps most of it. */
const EVENT_ANSWER_CHARS = 4000;

export type ScenarioRun = {
  scenario: Scenario;
  run: number;
  index: number;
  total: number;
  target: BackendTarget;
  /** The suite's backend (Ollama or OpenAI-compatible, detected once): the agent's and, by default, the judge's. */
  backend: LlmBackend;
  instance: ProvisionedInstance | null;
  /** The seed this run sends (null: none). */
  seed: number | null;
};

type Outcome = { answer: AgentResult | null; error: string | null; durationMs: number };

async function ask(ctx: JobContext<'suite'>, deps: AgentWorkflowDeps, params: ScenarioRun, progress: { detail: string; percent: number }): Promise<Outcome> {
  const { request } = ctx;
  const t0 = performance.now();
  try {
    const answer = await withSnapshotServed(ctx, deps.snapshots, params.scenario.snapshot_id, (lease) =>
      askAgent(ctx, deps, {
        agent: request.agent,
        question: params.scenario.question,
        model: request.model,
        kubeconfig: lease.kubeconfigPath,
        backendUrl: agentBackendUrl(params.target),
        backendType: request.backend_type,
        backendApi: params.backend.api,
        backendApiKey: params.target.apiKey,
        progress,
        sampling: { temperature: request.temperature, seed: params.seed },
      }),
    );
    return { answer, error: null, durationMs: elapsedMs(t0) };
  } catch (err) {
    // Cancel, shutdown or the spend limit stop the suite; anything else fails this scenario only.
    if (ctx.signal.aborted) throw err;
    return { answer: null, error: errorMessageOf(err), durationMs: elapsedMs(t0) };
  }
}

async function score(scorer: AnswerScorer, text: string, scenario: Scenario): Promise<{ score: ScenarioScore | null; error: string | null }> {
  try {
    return { score: await scorer.score(text, scenario), error: null };
  } catch (err) {
    return { score: null, error: `the answer could not be scored: ${errorMessageOf(err)}` };
  }
}

/** One scenario on its own served snapshot: ask, score, judge if asked. */
export async function runScenario(ctx: JobContext<'suite'>, deps: AgentWorkflowDeps & { scorer: AnswerScorer }, params: ScenarioRun): Promise<ScenarioResult> {
  const { request } = ctx;
  const { scenario, run, index, total } = params;
  const labels = { scenario_id: scenario.scenario_id, run, index, total, snapshot_id: scenario.snapshot_id };
  const progress = { detail: `scenario ${index} of ${total}: ${scenario.title}`, percent: Math.round(((index - 1) / total) * 100) };
  await ctx.setProgress('analysis', progress.detail, progress.percent);
  await ctx.emit({ event: 'scenario.started', status: 'started', message: `${scenario.title}${request.repeat > 1 ? ` (run ${run} of ${request.repeat})` : ''}`, labels });
  const outcome = await ask(ctx, deps, params, progress);
  const text = outcome.answer?.answer ?? '';
  const scored = outcome.error === null ? await score(deps.scorer, text, scenario) : { score: null, error: null };
  const judged = request.judge && outcome.answer && scored.score ? await judgeScenario(ctx, scenario, text, params) : { judge: null, error: null };
  const error = outcome.error ?? scored.error ?? judged.error;
  const rules = scored.score;
  const rulesPassed = rules?.passed ?? false;
  const decided = judged.judge ? judged.judge.passed : rulesPassed;
  const result: ScenarioResult = {
    scenario_id: scenario.scenario_id,
    run,
    passed: error === null && decided,
    rules_passed: rulesPassed,
    method: judged.judge ? 'judge' : 'rules',
    // The rules' score: the judge's own is in `judge.score`.
    score: error === null ? (rules?.score ?? 0) : 0,
    matched: rules?.matched ?? [],
    missed: rules?.missed ?? scenario.expected.map((f) => f.finding),
    must_not_matched: rules?.must_not_matched ?? [],
    verdict: rules?.verdict ?? null,
    statements: rules?.statements ?? [],
    ...(request.judge ? { judge: judged.judge } : {}),
    answer: text,
    duration_ms: outcome.durationMs,
    prompt_tokens: outcome.answer?.metadata.prompt_tokens ?? null,
    completion_tokens: outcome.answer?.metadata.completion_tokens ?? null,
    tool_calls: outcome.answer?.metadata.tool_calls ?? null,
    seed: params.seed,
    ...(error !== null ? { error } : {}),
  };
  await emitScored(ctx, scenario, result, labels);
  return result;
}

function scoredMessage(scenario: Scenario, r: ScenarioResult): string {
  if (r.error) return r.error;
  const findings = `${r.matched.length} of ${scenario.expected.length} findings`;
  const wrong = r.must_not_matched.length ? `, ${r.must_not_matched.length} wrong claim(s)` : '';
  const verdict = r.verdict?.found ? `, verdict ${r.verdict.correct ? 'right' : 'wrong'}` : '';
  const judge = r.judge ? `; judge: ${r.judge.passed ? 'passed' : 'failed'}${r.judge.passed !== r.rules_passed ? ' (rules disagree)' : ''}` : '';
  return `${r.passed ? 'passed' : 'failed'}: ${findings}${wrong}${verdict}${judge}`;
}

/** Everything a page (or a crash) needs to show the row: the result's fields as labels. */
async function emitScored(ctx: JobContext<'suite'>, scenario: Scenario, r: ScenarioResult, labels: Record<string, string | number>): Promise<void> {
  await ctx.emit({
    event: 'scenario.scored',
    status: r.error ? 'error' : 'ok',
    duration_ms: r.duration_ms,
    message: scoredMessage(scenario, r),
    error_type: r.error ? 'scenario_failed' : null,
    labels: {
      ...labels,
      passed: r.passed,
      rules_passed: r.rules_passed ?? null,
      method: r.method ?? 'rules',
      score: r.score,
      matched: r.matched.join('\n'),
      missed: r.missed.join('\n'),
      must_not_matched: r.must_not_matched.join('\n'),
      verdict_found: r.verdict?.found ?? null,
      verdict_correct: r.verdict?.correct ?? null,
      verdict_detail: r.verdict?.detail ?? null,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      tool_calls: r.tool_calls,
      seed: r.seed ?? null,
      answer: r.answer.slice(0, EVENT_ANSWER_CHARS),
      ...(r.judge ? { judge_score: r.judge.score, judge_passed: r.judge.passed } : {}),
    },
  });
}

async function judgeScenario(ctx: JobContext<'suite'>, scenario: Scenario, answer: string, params: ScenarioRun): Promise<{ judge: JudgeVerdict | null; error: string | null }> {
  const judge = ctx.request.judge as NonNullable<SuiteRequest['judge']>;
  const client = judge.backend_url ? llmClient({ backendUrl: judge.backend_url }) : params.backend;
  try {
    const { output, usage } = await ctx.step(
      'judge.ask',
      () => judgeAnswer(client, { model: judge.model, question: scenario.question, truth: scenario.verdict, expected: scenario.expected, mustNot: scenario.must_not, answer, signal: ctx.signal }),
      { scenario_id: scenario.scenario_id, model: judge.model },
    );
    // On the suite's rented machine the judge's time is part of its bill: reported as its share.
    const share = !judge.backend_url && params.instance ? machineUsd(params.instance.dphTotal, 0, usage.duration_ms) : 0;
    return {
      judge: { ...output, model: judge.model, duration_ms: Math.round(usage.duration_ms * 10) / 10, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cost_usd: share },
      error: null,
    };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // The judge decides when asked: a run it could not grade is an error, not a silent fallback to the rules.
    const why = `${errorMessageOf(err)}${err instanceof JudgeOutputError ? ` (${err.usage.attempts} attempts)` : ''}`;
    await ctx.info('judge.failed', `the judge could not grade ${scenario.scenario_id}: ${why}`, { scenario_id: scenario.scenario_id });
    return { judge: null, error: `the judge could not grade the answer: ${why}` };
  }
}
