import { JobFailure, type AnyJobHandler, type JobContext, type JobHandler } from '../../src-main/engine/types';
import type { AgentResult, BenchmarkResult, JobKind, JobRecord, LlmInstanceExistingResult, ServingBenchmarkRequest, ServingBenchmarkResult, SuiteResult } from '../../shared';
import { servingLevels } from '../../shared';
import { summarizeLevel } from '../../src-main/serving/summary';

/**
 * Test job handlers for every kind. The behaviour is chosen by the request:
 *  - agentic-agent / benchmark: the `question` field
 *  - llm-instance, serving-benchmark: the host of `backend_url` (http://ok, http://fail, http://hang …)
 * Each returns its kind's typed result (see testAgentResult/testBenchmarkResult/testLlmResult): the
 * agent kinds' `answer` says what ran and the request is echoed as an artifact.
 * Modes:
 *  ok     succeed at once with the answer `echo`
 *  fail   throw JobFailure('test_failure')
 *  crash  throw a plain Error (error_code "internal")
 *  steps  two timed steps (one of each kind of outcome is not needed: both ok) + progress
 *  stepfail  a timed step that throws a JobFailure
 *  hang   wait until the job's signal aborts, run cleanup, rethrow
 *  hold   wait until the test calls release(job_id) (or abort → cleanup, rethrow)
 */
export type Mode = 'ok' | 'fail' | 'crash' | 'steps' | 'stepfail' | 'hang' | 'hold';

export type Recorder = {
  /** job ids in the order their handler started. */
  started: string[];
  /** how many times each job's handler ran. */
  runs: Map<string, number>;
  /** job ids whose cleanup ran (after an abort). */
  cleanups: { jobId: string; reason: unknown }[];
  /** job ids passed to a recover hook. */
  recovered: JobRecord[];
  /** job ids whose handler is currently running. */
  active: Set<string>;
  /** the highest number of handlers running at once. */
  maxActive: number;
  release(jobId: string): void;
  /** resolves when the job's handler has started. */
  startedJob(jobId: string): Promise<void>;
};

function modeOf(kind: JobKind, request: { backend_url?: string | undefined; question?: string }): Mode {
  let raw: string;
  if (kind === 'llm-instance' || kind === 'serving-benchmark') {
    raw = (request.backend_url ?? '').replace(/^https?:\/\//, '').split(/[/:]/)[0] ?? '';
  } else {
    raw = request.question?.split(' ')[0] ?? '';
  }
  const modes: Mode[] = ['ok', 'fail', 'crash', 'steps', 'stepfail', 'hang', 'hold'];
  return (modes as string[]).includes(raw) ? (raw as Mode) : 'ok';
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(new Error(`aborted: ${String(signal.reason)}`));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/** The recorder, and what the handlers tell it: a job started, a held job waits for its release. */
function createRecorder(): { recorder: Recorder; started(jobId: string): void; released(jobId: string): Promise<void>; forgetGate(jobId: string): void } {
  const gates = new Map<string, () => void>();
  const releasedEarly = new Set<string>();
  const startWaiters = new Map<string, (() => void)[]>();
  const recorder: Recorder = {
    started: [],
    runs: new Map(),
    cleanups: [],
    recovered: [],
    active: new Set(),
    maxActive: 0,
    release(jobId) {
      const gate = gates.get(jobId);
      if (gate) gate();
      else releasedEarly.add(jobId);
    },
    startedJob(jobId) {
      if (recorder.started.includes(jobId)) return Promise.resolve();
      return new Promise((resolve) => {
        const list = startWaiters.get(jobId) ?? [];
        list.push(resolve);
        startWaiters.set(jobId, list);
      });
    },
  };
  return {
    recorder,
    started(jobId) {
      recorder.started.push(jobId);
      recorder.runs.set(jobId, (recorder.runs.get(jobId) ?? 0) + 1);
      recorder.active.add(jobId);
      recorder.maxActive = Math.max(recorder.maxActive, recorder.active.size);
      for (const resolve of startWaiters.get(jobId) ?? []) resolve();
      startWaiters.delete(jobId);
    },
    released: (jobId) =>
      new Promise<void>((resolve) => {
        if (releasedEarly.has(jobId)) resolve();
        else gates.set(jobId, resolve);
      }),
    forgetGate(jobId) {
      gates.delete(jobId);
    },
  };
}

export function createTestHandlers(options: { validateAgents?: readonly string[] } = {}): { handlers: AnyJobHandler[]; recorder: Recorder } {
  const control = createRecorder();
  const recorder = control.recorder;

  /** Runs the mode; resolves to the answer. */
  async function run(ctx: JobContext): Promise<string> {
    const jobId = ctx.job.job_id;
    control.started(jobId);
    try {
      const mode = modeOf(ctx.job.kind, ctx.request);
      switch (mode) {
        case 'ok':
          return 'echo';
        case 'fail':
          throw new JobFailure('test_failure', 'the test handler failed on purpose');
        case 'crash':
          throw new Error('plain crash');
        case 'steps': {
          await ctx.setProgress('provision', 'renting');
          const a = await ctx.step('phase.provision', async () => 'provisioned', { gpu: 'test' });
          await ctx.info('marketplace.note', 'a note');
          const b = await ctx.step('agent.ask', async () => 'answered');
          await ctx.setProgress('analysis');
          return `${a} ${b}`;
        }
        case 'stepfail':
          await ctx.step('phase.provision', async () => {
            throw new JobFailure('no_offers', 'no offer fits');
          });
          return 'unreachable';
        case 'hang':
          try {
            return await ctx.step('agent.ask', () => waitForAbort(ctx.signal));
          } finally {
            recorder.cleanups.push({ jobId, reason: ctx.signal.reason });
            await ctx.info('phase.teardown', 'cleanup ran');
          }
        case 'hold':
          try {
            await Promise.race([control.released(jobId), waitForAbort(ctx.signal)]);
            return 'held';
          } finally {
            control.forgetGate(jobId);
            if (ctx.signal.aborted) recorder.cleanups.push({ jobId, reason: ctx.signal.reason });
          }
      }
    } finally {
      recorder.active.delete(jobId);
    }
  }

  const shared = {
    async recover(job: JobRecord, ctx: Parameters<NonNullable<JobHandler['recover']>>[1]) {
      recorder.recovered.push(job);
      await ctx.emit({ event: 'marketplace.instance.destroy', status: 'info', message: 'released after restart' });
      await ctx.setResources({ marketplace_instance_released: true });
    },
  };
  const llm: JobHandler<'llm-instance'> = {
    kind: 'llm-instance',
    run: async (ctx) => testLlmResult(ctx.request.backend_url, await run(ctx)),
    ...shared,
  };
  // Like the real workflows, both agent kinds refuse an agent the server does not know.
  const agentCheck = options.validateAgents
    ? {
        async validate(request: { agent: string }) {
          return options.validateAgents?.includes(request.agent) ? [] : [{ path: 'agent', message: `unknown agent ${request.agent}` }];
        },
      }
    : {};
  const agent: JobHandler<'agentic-agent'> = {
    kind: 'agentic-agent',
    run: async (ctx) => testAgentResult(await run(ctx), ctx.request),
    ...shared,
    ...agentCheck,
  };
  const benchmark: JobHandler<'benchmark'> = {
    kind: 'benchmark',
    run: async (ctx) => testBenchmarkResult(await run(ctx), ctx.request),
    ...shared,
    ...agentCheck,
  };

  const suite: JobHandler<'suite'> = {
    kind: 'suite',
    run: async (ctx) => testSuiteResult(await run(ctx), ctx.request),
    ...shared,
  };
  const serving: JobHandler<'serving-benchmark'> = {
    kind: 'serving-benchmark',
    run: async (ctx) => testServingResult(await run(ctx), ctx.request),
    ...shared,
  };

  const handlers: AnyJobHandler[] = [llm, agent, benchmark, suite, serving];
  return { handlers, recorder };
}

/** Valid request bodies per kind; `mode` selects the test handler's behaviour. */
export const bodies = {
  llm: (mode: Mode = 'ok'): Record<string, unknown> => ({ backend_url: `http://${mode}:11434` }),
  agent: (mode: Mode = 'ok'): Record<string, unknown> => ({ question: `${mode} what is wrong?`, model: 'llama3:8b', agent: 'builtin', backend_url: 'http://x' }),
  benchmark: (mode: Mode = 'ok'): Record<string, unknown> => ({ question: `${mode} check the cluster`, model: 'llama3:8b', backend_url: 'http://x' }),
  /** A suite run on the shipped suite (no test handler runs it: the job is accepted, then fails for want of one). */
  suite: (): Record<string, unknown> => ({ suite_id: 'starter', model: 'llama3:8b', backend_url: 'http://x' }),
  serving: (mode: Mode = 'ok'): Record<string, unknown> => ({ model: 'llama3:8b', backend_url: `http://${mode}:11434`, concurrency: [1, 2], requests_per_level: 4 }),
};

/** A serving result with one empty level per requested concurrency; the test handler's answer is the model. */
export function testServingResult(answer: string, request: ServingBenchmarkRequest): ServingBenchmarkResult {
  return {
    model: answer,
    backend_url: request.backend_url ?? '',
    prompt_tokens: request.prompt_tokens,
    output_tokens: request.output_tokens,
    requests_per_level: request.requests_per_level ?? null,
    warmup_requests: request.warmup_requests,
    levels: servingLevels(request).map((spec) => summarizeLevel({ spec, outcomes: [], durationMs: 0, started: 0, firstStartMs: null, lastStartMs: null, stopped: null }, null, null)),
    best: { by_throughput: null, by_cost: null, by_throughput_level: null, by_cost_level: null, by_slo: null },
    backend_api: 'ollama',
    network_rtt_ms: null,
    duration_s: null,
    dataset: request.dataset,
    slo: null,
    warnings: [],
    manifest: null,
    contract_id: null,
    phases: [],
    cost: { dph_total: 0, rented_seconds: 0, cost_usd: 0 },
    instance: null,
    teardown: null,
  };
}

/** An agent result whose answer says what the test handler did; the request comes back as an artifact. */
export function testAgentResult(answer: string, request: object): AgentResult {
  return {
    answer,
    result_type: 'text',
    artifacts: [{ kind: 'echo', data: request }],
    metadata: { agent: 'test', model: null, steps: null, tool_calls: null, prompt_tokens: null, completion_tokens: null, tokens_per_second: null, duration_ms: null },
  };
}

export function testBenchmarkResult(answer: string, request: { model: string; backend_url?: string | undefined }): BenchmarkResult {
  return {
    ...testAgentResult(answer, request),
    model_name: request.model,
    backend_url: request.backend_url ?? '',
    contract_id: null,
    phases: [],
    cost: { dph_total: 0, rented_seconds: 0, cost_usd: 0 },
    instance: null,
    teardown: null,
  };
}

/** A suite result of one scenario whose answer says what the test handler did. */
export function testSuiteResult(answer: string, request: { suite_id: string; agent: string; model: string; backend_url?: string | undefined }): SuiteResult {
  return {
    suite_id: request.suite_id,
    agent: request.agent,
    model: request.model,
    backend_url: request.backend_url ?? '',
    scenarios: [{ scenario_id: 'test', run: 1, passed: true, score: 1, matched: [], missed: [], must_not_matched: [], answer, duration_ms: 1, prompt_tokens: null, completion_tokens: null, tool_calls: null }],
    summary: { passed: 1, total: 1, accuracy: 1, mean_score: 1, latency_ms: { p50: 1, p95: 1 }, tokens_per_second: null, cost_usd: 0, cost_per_correct_usd: 0 },
    phases: [],
    cost: null,
    instance: null,
    teardown: null,
  };
}

/** An existing-llmserver result: the request's URL, and the answer as the one model listed. */
export function testLlmResult(backendUrl: string | undefined, answer: string): LlmInstanceExistingResult {
  return { mode: 'existing', backend_url: backendUrl ?? '', models: [{ name: answer }], backend_api: 'ollama' };
}
