import type { AgentResult } from '../../shared/results';
import { AgentEventSchema, DRIVER_ACTIONS, DRIVER_EVENT_PREFIX, DriverAgentResultSchema, DriverAskParamsSchema, DriverInfoSchema, type DriverAskParams } from './driver-wire';
import { LlmError } from '../llm/errors';
import { askBuiltin } from './builtin';
import { AgentError, formatDuration } from './errors';
import { roundMs, timed } from '../events/timed';
import { safeSink, type AgentEventSink } from './events';
import { resolveKubeconfigPath } from './kubeconfig-path';
import { DEFAULT_DRIVER_TIMEOUT_MS, DRIVER_VERSION, type DriverTransport } from './transport';
import type { AgentAskOptions, AgentAskParams, AgentEntry, AgentRegistryOptions, ResolvedAgent } from './registry';

/**
 * Asking one agent of the registry (registry.ts): the built-in agent in this process, or a driver
 * over its transport; every result validated and completed to the design §4 shape.
 */

/** The ask parameters a driver takes, from what the engine hands over (defaults filled in). */
function askParams(input: AgentAskParams, env: NodeJS.ProcessEnv): DriverAskParams {
  const parsed = DriverAskParamsSchema.safeParse({
    question: input.question,
    model: input.model,
    kubeconfig: resolveKubeconfigPath(input.kubeconfig, env),
    backend_type: input.backend_type ?? 'llmserver',
    backend_url: input.backend_url,
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
    backend_api: input.backend_api ?? 'ollama',
    ...(input.backend_api_key ? { backend_api_key: input.backend_api_key } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentError('invalid_params', `invalid ask parameters (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  return parsed.data;
}

/**
 * Asks a driver process or server. Its stderr lines that carry agent events (DRIVER_EVENT_PREFIX)
 * go to the event sink; the others to `onStderr`.
 */
async function askDriver(call: DriverTransport, params: DriverAskParams, opts: AgentAskOptions, sink: AgentEventSink): Promise<unknown> {
  const onStderr = (line: string): void => {
    if (line.startsWith(DRIVER_EVENT_PREFIX)) {
      let json: unknown;
      try {
        json = JSON.parse(line.slice(DRIVER_EVENT_PREFIX.length));
      } catch {
        json = undefined;
      }
      const event = AgentEventSchema.safeParse(json);
      // agent.ask is ours to record; a driver's own would be a duplicate.
      if (event.success && event.data.event !== 'agent.ask') {
        const { duration_ms } = event.data;
        sink({ ...event.data, duration_ms: duration_ms === null ? null : roundMs(duration_ms) });
        return;
      }
    }
    opts.onStderr?.(line);
  };
  return call.call('ask', params, { signal: opts.signal, onStderr });
}

/** Turns a driver's `ask` result into the design §4 shape, filling what the driver could not know. */
function normaliseResult(name: string, raw: unknown, params: DriverAskParams, durationMs: number): AgentResult {
  const parsed = DriverAgentResultSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentError('invalid_response', `agent '${name}' returned a result that is not an agent result (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  const r = parsed.data;
  const answer = r.answer.trim();
  if (!answer) throw new AgentError('driver_error', `agent '${name}' returned an empty answer`);
  const md = r.metadata;
  return {
    answer,
    result_type: 'text',
    artifacts: r.artifacts,
    metadata: {
      ...md,
      agent: name,
      model: md.model ?? params.model,
      steps: md.steps ?? null,
      tool_calls: md.tool_calls ?? null,
      prompt_tokens: md.prompt_tokens ?? null,
      completion_tokens: md.completion_tokens ?? null,
      tokens_per_second: md.tokens_per_second ?? null,
      duration_ms: md.duration_ms ?? roundMs(durationMs),
    },
  };
}

/** One agent, ready to be asked: each ask validated, timed as `agent.ask`, and its result completed. */
export function resolvedAgent(entry: AgentEntry, options: AgentRegistryOptions, env: NodeJS.ProcessEnv): ResolvedAgent {
  return {
    name: entry.name,
    transport: entry.transport,

    async ask(input, opts = {}) {
      const sink = safeSink(opts.onEvent);
      const params = askParams(input, env);
      const labels = { agent: entry.name, model: params.model, transport: entry.transport };
      return timed(
        sink,
        'agent.ask',
        async () => {
          const started = performance.now();
          // The in-process agent gets the same time limit a driver process would.
          const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS);
          try {
            if (!entry.call) {
              const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
              return await askBuiltin(params, { ...options.builtin, signal, onEvent: sink });
            }
            const raw = await askDriver(entry.call, params, opts, sink);
            return normaliseResult(entry.name, raw, params, performance.now() - started);
          } catch (err) {
            if (opts.signal?.aborted && !(err instanceof AgentError && err.code === 'cancelled')) {
              throw new AgentError('cancelled', `agent '${entry.name}' was cancelled`, {}, { cause: err });
            }
            if (!entry.call && deadline.aborted) {
              const limit = formatDuration(options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS);
              throw new AgentError('timeout', `agent '${entry.name}' did not finish within ${limit}`, {}, { cause: err });
            }
            if (err instanceof LlmError) throw new AgentError('llm', err.message, {}, { cause: err });
            throw err;
          }
        },
        { labels, done: (r) => ({ labels: { steps: r.metadata.steps, tool_calls: r.metadata.tool_calls, answer_chars: r.answer.length } }) },
      );
    },

    async info(opts = {}) {
      if (!entry.call) return { name: 'builtin', version: DRIVER_VERSION, actions: [...DRIVER_ACTIONS] };
      const raw = await entry.call.call('info', {}, { signal: opts.signal });
      const parsed = DriverInfoSchema.safeParse(raw);
      if (!parsed.success) throw new AgentError('invalid_response', `driver '${entry.name}' answered info with an unexpected shape`);
      return parsed.data;
    },
  };
}
