import { JobFailure, type AnyJobHandler, type JobContext, type JobHandler } from '../../src-main/engine/types';
import type { JobKind, JobRecord } from '../../shared';

/**
 * Test job handlers for the three kinds. The behaviour is chosen by the request:
 *  - agentic-agent / benchmark: the `question` field
 *  - llm-instance: the host of `backend_url` (http://ok, http://fail, http://hang …)
 * Modes:
 *  ok     succeed at once with {echo: request}
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

function modeOf(kind: JobKind, request: Record<string, unknown>): Mode {
  let raw: string;
  if (kind === 'llm-instance') {
    const url = typeof request.backend_url === 'string' ? request.backend_url : '';
    raw = url.replace(/^https?:\/\//, '').split(/[/:]/)[0] ?? '';
  } else {
    raw = typeof request.question === 'string' ? request.question.split(' ')[0] ?? '' : '';
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

export function createTestHandlers(options: { validateAgents?: readonly string[] } = {}): { handlers: AnyJobHandler[]; recorder: Recorder } {
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

  async function run(ctx: JobContext): Promise<Record<string, unknown>> {
    const jobId = ctx.job.job_id;
    recorder.started.push(jobId);
    recorder.runs.set(jobId, (recorder.runs.get(jobId) ?? 0) + 1);
    recorder.active.add(jobId);
    recorder.maxActive = Math.max(recorder.maxActive, recorder.active.size);
    for (const resolve of startWaiters.get(jobId) ?? []) resolve();
    startWaiters.delete(jobId);
    const request = ctx.request as unknown as Record<string, unknown>;
    try {
      const mode = modeOf(ctx.job.kind, request);
      switch (mode) {
        case 'ok':
          return { echo: request };
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
          return { a, b };
        }
        case 'stepfail':
          await ctx.step('phase.provision', async () => {
            throw new JobFailure('no_offers', 'no offer fits');
          });
          return {};
        case 'hang':
          try {
            await ctx.step('agent.ask', () => waitForAbort(ctx.signal));
            return {};
          } finally {
            recorder.cleanups.push({ jobId, reason: ctx.signal.reason });
            await ctx.info('phase.teardown', 'cleanup ran');
          }
        case 'hold':
          try {
            await Promise.race([
              new Promise<void>((resolve) => {
                if (releasedEarly.has(jobId)) resolve();
                else gates.set(jobId, resolve);
              }),
              waitForAbort(ctx.signal),
            ]);
            return { held: true };
          } finally {
            gates.delete(jobId);
            if (ctx.signal.aborted) recorder.cleanups.push({ jobId, reason: ctx.signal.reason });
          }
      }
    } finally {
      recorder.active.delete(jobId);
    }
  }

  function handler<K extends JobKind>(kind: K): JobHandler<K> {
    return {
      kind,
      run: (ctx) => run(ctx as unknown as JobContext),
      async recover(job, ctx) {
        recorder.recovered.push(job);
        await ctx.emit({ event: 'marketplace.instance.destroy', status: 'info', message: 'released after restart' });
        await ctx.setResources({ marketplace_instance_released: true });
      },
      ...(kind === 'agentic-agent' && options.validateAgents
        ? {
            async validate(request: unknown) {
              const agent = (request as { agent: string }).agent;
              return options.validateAgents?.includes(agent) ? [] : [{ path: 'agent', message: `unknown agent ${agent}` }];
            },
          }
        : {}),
    } as JobHandler<K>;
  }

  const handlers = [handler('llm-instance'), handler('agentic-agent'), handler('benchmark')] as AnyJobHandler[];
  return { handlers, recorder };
}

/** Valid request bodies per kind; `mode` selects the test handler's behaviour. */
export const bodies = {
  llm: (mode: Mode = 'ok'): Record<string, unknown> => ({ backend_url: `http://${mode}:11434` }),
  agent: (mode: Mode = 'ok'): Record<string, unknown> => ({ question: `${mode} what is wrong?`, model: 'llama3:8b', agent: 'builtin', backend_url: 'http://x' }),
  benchmark: (mode: Mode = 'ok'): Record<string, unknown> => ({ question: `${mode} check the cluster`, model: 'llama3:8b', backend_url: 'http://x' }),
};
