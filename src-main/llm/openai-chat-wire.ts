import type { AssistantMessage, ChatMessage, ChatModelOptions, ChatResult, ChatToolCall } from './chat-types';
import type { OpenAiChatChunk, OpenAiUsage } from './openai-wire';

/**
 * Our chat records ↔ OpenAI's chat completions: messages and tools out (tool-call arguments as a
 * JSON string, results as `role:"tool"` with the call's id), and the streamed chunks back into
 * one ChatResult (content deltas joined, tool-call fragments assembled by `index`, the usage chunk's
 * counts as the metrics).
 */

export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export function toOpenAiMessages(messages: readonly ChatMessage[]): OpenAiMessage[] {
  return messages.map((message, i): OpenAiMessage => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content || null,
          tool_calls: calls.map((call, j) => ({ id: call.id ?? `call_${i}_${j}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) } })),
        };
      }
      case 'tool':
        // A result without the call's id answers the latest call of that name (the agent always has ids here).
        return { role: 'tool', tool_call_id: message.tool_call_id ?? toolCallIdFor(messages, i, message.tool_name), content: message.content };
    }
  });
}

function toolCallIdFor(messages: readonly ChatMessage[], before: number, name: string): string {
  for (let i = before - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'assistant') continue;
    const j = (m.tool_calls ?? []).findIndex((c) => c.name === name);
    if (j >= 0) return m.tool_calls?.[j]?.id ?? `call_${i}_${j}`;
  }
  return 'call_unknown';
}

/** Ollama-style sampling options as OpenAI request fields (`num_predict` is `max_tokens`; `num_ctx` has no equivalent). */
export function openAiSampling(options: ChatModelOptions | undefined): Record<string, unknown> {
  if (!options) return {};
  const out: Record<string, unknown> = {};
  if (options.temperature !== undefined) out.temperature = options.temperature;
  if (options.top_p !== undefined) out.top_p = options.top_p;
  if (options.seed !== undefined) out.seed = options.seed;
  if (options.stop !== undefined) out.stop = options.stop;
  if (options.num_predict !== undefined) out.max_tokens = options.num_predict;
  return out;
}

/** Tool arguments arrive as a JSON string; the agent works with an object. Not an object: empty (the tool then says what is missing). */
export function parseArguments(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A streamed chunk that is plain text (`choices[].delta.content` strings, no tool calls, no usage),
 * checked with typeof alone: most chunks of an answer, read without building a zod copy of each
 * (a turn streams tens of thousands). Anything else returns null and is validated with the schema.
 */
export function plainTextChunk(json: unknown): OpenAiChatChunk | null {
  if (!json || typeof json !== 'object') return null;
  const { choices, usage } = json as { choices?: unknown; usage?: unknown };
  if (!Array.isArray(choices) || (usage !== undefined && usage !== null)) return null;
  for (const choice of choices as unknown[]) {
    if (!choice || typeof choice !== 'object') return null;
    const { delta, finish_reason: finish } = choice as { delta?: unknown; finish_reason?: unknown };
    if (finish !== undefined && finish !== null && typeof finish !== 'string') return null;
    if (delta === undefined || delta === null) continue;
    if (typeof delta !== 'object') return null;
    const { content, role, tool_calls: calls, reasoning_content: reasoning } = delta as Record<string, unknown>;
    if (calls !== undefined && calls !== null) return null;
    for (const field of [content, role, reasoning]) if (field !== undefined && field !== null && typeof field !== 'string') return null;
  }
  return json as OpenAiChatChunk;
}

export class OpenAiChatAccumulator {
  private content = '';
  private thinking = '';
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private model = '';
  private finishReason: string | undefined;
  private usage: OpenAiUsage | null = null;

  /** Returns this chunk's text deltas, for streaming callbacks. */
  add(chunk: OpenAiChatChunk): { content?: string; thinking?: string } {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const delta: { content?: string; thinking?: string } = {};
    for (const choice of chunk.choices) {
      const d = choice.delta;
      if (d?.content) {
        this.content += d.content;
        delta.content = (delta.content ?? '') + d.content;
      }
      if (d?.reasoning_content) {
        this.thinking += d.reasoning_content;
        delta.thinking = (delta.thinking ?? '') + d.reasoning_content;
      }
      for (const piece of d?.tool_calls ?? []) this.addCall(piece);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return delta;
  }

  private addCall(piece: NonNullable<NonNullable<OpenAiChatChunk['choices'][number]['delta']>['tool_calls']>[number]): void {
    const index = piece.index ?? this.calls.size;
    const call = this.calls.get(index) ?? { id: '', name: '', args: '' };
    if (piece.id) call.id = piece.id;
    if (piece.function?.name) call.name += piece.function.name;
    if (piece.function?.arguments) call.args += piece.function.arguments;
    this.calls.set(index, call);
  }

  /** A non-streamed answer's message, folded the same way. */
  addMessage(message: { content?: string | null; reasoning_content?: string | null; tool_calls?: { id?: string | null; function: { name: string; arguments?: string | null } }[] | null }, finishReason: string | null | undefined, usage: OpenAiUsage | null | undefined, model: string | null | undefined): void {
    this.content += message.content ?? '';
    this.thinking += message.reasoning_content ?? '';
    for (const call of message.tool_calls ?? []) this.calls.set(this.calls.size, { id: call.id ?? '', name: call.function.name, args: call.function.arguments ?? '' });
    if (finishReason) this.finishReason = finishReason;
    if (usage) this.usage = usage;
    if (model) this.model = model;
  }

  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  result(): ChatResult {
    const message: AssistantMessage = { role: 'assistant', content: this.content };
    if (this.thinking) message.thinking = this.thinking;
    const calls: ChatToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, c]) => c.name !== '')
      .map(([i, c]) => ({ id: c.id || `call_${i}`, name: c.name, arguments: parseArguments(c.args) }));
    if (calls.length > 0) message.tool_calls = calls;
    const result: ChatResult = { message, model: this.model, metrics: {} };
    if (this.usage?.prompt_tokens != null) result.metrics.prompt_eval_count = this.usage.prompt_tokens;
    if (this.usage?.completion_tokens != null) result.metrics.eval_count = this.usage.completion_tokens;
    if (this.finishReason !== undefined) result.done_reason = this.finishReason;
    return result;
  }
}
