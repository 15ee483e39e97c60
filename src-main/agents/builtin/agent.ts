import type { AgentResult } from '../../../shared/results';
import type { ChatMessage, ChatModelOptions, ChatResult, ChatToolCall, ChatToolDefinition, LlmChat } from '../../llm/chat-types';
import { ToolsUnsupportedError } from '../../llm/errors';
import { DEFAULT_TURN_DEADLINE_MS } from '../../llm/stream-limits';
import { AgentError } from '../errors';
import { elapsedMs, timed } from '../../events/timed';
import { safeSink, type AgentEventSink } from '../events';
import type { KubeReader } from './kube-client';
import { EMPTY_ANSWER_NUDGE, FALLBACK_SYSTEM_PROMPT, FINAL_ANSWER_PROMPT, SYSTEM_PROMPT, fallbackUserPrompt } from './prompts';
import { KUBERNETES_TOOLS, SUMMARY_TOOLS, type AgentTool, type ToolOutcome } from './tools';
import { UsageMeter } from './usage';

/**
 * The built-in agent's loop: chat with tools, run the calls the model asks for, feed the results
 * back, until the model answers or the step limit is reached (then one last round without tools
 * forces an answer). A model without tool support gets a cluster snapshot gathered with the same
 * tools and is asked once.
 */

export const DEFAULT_MAX_STEPS = 8;
/** More calls than this in one turn are answered with an error instead of run. */
const MAX_TOOL_CALLS_PER_TURN = 8;
const MAX_ARGUMENT_LABEL_CHARS = 500;

export type BuiltinAgentOptions = {
  llm: LlmChat;
  kube: KubeReader;
  model: string;
  tools?: readonly AgentTool[];
  summaryTools?: readonly AgentTool[];
  maxSteps?: number;
  signal?: AbortSignal;
  onEvent?: AgentEventSink;
  /** Sampling options for every round; temperature 0 keeps benchmark runs comparable. */
  chatOptions?: ChatModelOptions;
  /** Per chat call (idle gap when streamed), passed to the LLM client. */
  chatTimeoutMs?: number;
  /** The longest one turn (one chat call) may take in all, however it streams (default DEFAULT_TURN_DEADLINE_MS). */
  turnDeadlineMs?: number;
};

type ToolTrace = { tool: string; arguments: Record<string, unknown>; ok: boolean; chars: number };

function argumentsLabel(args: Record<string, unknown>): string {
  const json = JSON.stringify(args ?? {});
  return json.length > MAX_ARGUMENT_LABEL_CHARS ? `${json.slice(0, MAX_ARGUMENT_LABEL_CHARS)}…` : json;
}

/** One LLM round of the agent, timed as an `llmserver.chat` event; its usage is added to the meter. */
function chatRound(options: BuiltinAgentOptions, sink: AgentEventSink, usage: UsageMeter, definitions: ChatToolDefinition[]) {
  const { llm, model, signal } = options;
  return (messages: ChatMessage[], withTools: boolean): Promise<ChatResult> =>
    timed(
      sink,
      'llmserver.chat',
      async () => {
        const result = await llm.chat({
          model,
          messages,
          ...(withTools ? { tools: definitions } : {}),
          signal,
          options: options.chatOptions ?? { temperature: 0 },
          ...(options.chatTimeoutMs ? { timeoutMs: options.chatTimeoutMs } : {}),
          deadlineMs: options.turnDeadlineMs ?? DEFAULT_TURN_DEADLINE_MS,
        });
        usage.addRound(result.metrics);
        return result;
      },
      {
        labels: { model, step: usage.steps + 1, tools: withTools },
        done: (r) => ({
          labels: {
            prompt_tokens: r.metrics.prompt_eval_count ?? null,
            completion_tokens: r.metrics.eval_count ?? null,
            tool_calls: r.message.tool_calls?.length ?? 0,
            done_reason: r.done_reason ?? null,
          },
        }),
      },
    );
}

export async function runBuiltinAgent(question: string, options: BuiltinAgentOptions): Promise<AgentResult> {
  const started = performance.now();
  const sink = safeSink(options.onEvent);
  const tools = options.tools ?? KUBERNETES_TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const definitions: ChatToolDefinition[] = tools.map((t) => t.definition);
  const maxSteps = Math.max(1, options.maxSteps ?? DEFAULT_MAX_STEPS);
  const usage = new UsageMeter();
  const trace: ToolTrace[] = [];
  const { kube, model, signal } = options;

  const chat = chatRound(options, sink, usage, definitions);

  const runTool = async (tool: AgentTool | undefined, name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const start = performance.now();
    const outcome: ToolOutcome = tool
      ? await tool.execute(args, { kube, signal })
      : { ok: false, content: `error: unknown tool '${name}'; available tools: ${[...byName.keys()].join(', ')}` };
    usage.toolCalls++;
    trace.push({ tool: name, arguments: args, ok: outcome.ok, chars: outcome.content.length });
    sink({
      event: 'agent.tool_call',
      status: outcome.ok ? 'ok' : 'error',
      duration_ms: elapsedMs(start),
      message: outcome.ok ? null : outcome.content.slice(0, 500),
      error_type: outcome.ok ? null : 'tool_error',
      labels: { tool: name, arguments: argumentsLabel(args), result_chars: outcome.content.length, step: usage.steps },
    });
    return outcome;
  };

  const runCalls = async (calls: ChatToolCall[], messages: ChatMessage[]): Promise<void> => {
    for (const [i, call] of calls.entries()) {
      const idField = call.id ? { tool_call_id: call.id } : {};
      if (i >= MAX_TOOL_CALLS_PER_TURN) {
        messages.push({ role: 'tool', tool_name: call.name, content: `error: not run; call at most ${MAX_TOOL_CALLS_PER_TURN} tools per turn`, ...idField });
        continue;
      }
      const args = call.arguments && typeof call.arguments === 'object' ? call.arguments : {};
      const outcome = await runTool(byName.get(call.name), call.name, args);
      messages.push({ role: 'tool', tool_name: call.name, content: outcome.content, ...idField });
    }
  };

  const toolLoop = async (): Promise<string> => {
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: question },
    ];
    let nudged = false;
    for (let step = 0; step < maxSteps; step++) {
      const { message } = await chat(messages, true);
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) {
        if (message.content.trim()) return message.content.trim();
        if (nudged) break;
        // An empty turn: ask once more before giving up on tools.
        nudged = true;
        messages.push(message, { role: 'user', content: EMPTY_ANSWER_NUDGE });
        continue;
      }
      messages.push(message);
      await runCalls(calls, messages);
    }
    messages.push({ role: 'user', content: FINAL_ANSWER_PROMPT });
    const { message } = await chat(messages, false);
    return message.content.trim();
  };

  const snapshotLoop = async (): Promise<string> => {
    const sections: string[] = [];
    for (const tool of options.summaryTools ?? SUMMARY_TOOLS) {
      const outcome = await runTool(tool, tool.name, {});
      sections.push(`## ${tool.name}\n${outcome.content}`);
    }
    const { message } = await chat(
      [
        { role: 'system', content: FALLBACK_SYSTEM_PROMPT },
        { role: 'user', content: fallbackUserPrompt(question, sections.join('\n\n')) },
      ],
      false,
    );
    return message.content.trim();
  };

  let mode: 'tools' | 'snapshot' = 'tools';
  let answer: string;
  try {
    answer = await toolLoop();
  } catch (err) {
    if (!(err instanceof ToolsUnsupportedError)) throw err;
    mode = 'snapshot';
    sink({ event: 'agent.fallback', status: 'info', message: `model ${model} does not support tools; answering from a cluster snapshot`, labels: { model } });
    answer = await snapshotLoop();
  }
  if (!answer) throw new AgentError('llm', `model ${model} returned an empty answer`);

  return {
    answer,
    result_type: 'text',
    artifacts: [{ kind: 'tool_calls', title: 'Tool calls', data: trace }],
    metadata: {
      agent: 'builtin',
      model,
      steps: usage.steps,
      tool_calls: usage.toolCalls,
      prompt_tokens: usage.promptTokensOrNull,
      completion_tokens: usage.completionTokensOrNull,
      tokens_per_second: usage.tokensPerSecond,
      duration_ms: elapsedMs(started),
      mode,
    },
  };
}
