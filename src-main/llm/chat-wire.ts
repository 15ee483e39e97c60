import type { Message, ToolCall } from 'ollama';
import type { OllamaChatResponse } from './ollama-wire';
import type { AssistantMessage, ChatMessage, ChatMetrics, ChatResult, ChatToolCall } from './chat-types';

/** Ollama's wire message with the fields ollama-js's types leave out. */
type WireMessage = Message & { tool_call_id?: string };
type WireToolCall = ToolCall & { id?: string };

/** Our flat ChatMessage → Ollama's /api/chat message (tool calls nested under `function`). */
export function toWireMessage(message: ChatMessage): WireMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const wire: WireMessage = { role: 'assistant', content: message.content };
      if (message.thinking) wire.thinking = message.thinking;
      if (message.tool_calls?.length) {
        wire.tool_calls = message.tool_calls.map((call) => {
          const wireCall: WireToolCall = { function: { name: call.name, arguments: call.arguments } };
          if (call.id) wireCall.id = call.id;
          return wireCall;
        });
      }
      return wire;
    }
    case 'tool': {
      const wire: WireMessage = { role: 'tool', content: message.content, tool_name: message.tool_name };
      if (message.tool_call_id) wire.tool_call_id = message.tool_call_id;
      return wire;
    }
  }
}

const METRIC_KEYS = [
  'prompt_eval_count',
  'prompt_eval_duration',
  'eval_count',
  'eval_duration',
  'total_duration',
  'load_duration',
] as const satisfies readonly (keyof ChatMetrics)[];

/**
 * Folds /api/chat answers into one ChatResult: a single non-streamed answer, or NDJSON chunks
 * whose content deltas concatenate, whose tool calls arrive in some done:false chunk, and whose
 * final done:true chunk carries the metrics.
 */
export class ChatAccumulator {
  private content = '';
  private thinking = '';
  private readonly toolCalls: ChatToolCall[] = [];
  private model = '';
  private doneReason: string | undefined;
  private readonly metrics: ChatMetrics = {};
  private done = false;

  /** Returns the text deltas of this chunk, for streaming callbacks. */
  add(chunk: OllamaChatResponse): { content?: string; thinking?: string } {
    this.model = chunk.model || this.model;
    const delta: { content?: string; thinking?: string } = {};
    const message = chunk.message;
    if (message) {
      if (message.content) {
        this.content += message.content;
        delta.content = message.content;
      }
      if (message.thinking) {
        this.thinking += message.thinking;
        delta.thinking = message.thinking;
      }
      for (const call of message.tool_calls ?? []) {
        const flat: ChatToolCall = { name: call.function.name, arguments: call.function.arguments };
        if (call.id) flat.id = call.id;
        this.toolCalls.push(flat);
      }
    }
    if (chunk.done) {
      this.done = true;
      this.doneReason = chunk.done_reason ?? undefined;
      for (const key of METRIC_KEYS) {
        const value = chunk[key];
        if (value !== undefined) this.metrics[key] = value;
      }
    }
    return delta;
  }

  get isDone(): boolean {
    return this.done;
  }

  result(): ChatResult {
    const message: AssistantMessage = { role: 'assistant', content: this.content };
    if (this.thinking) message.thinking = this.thinking;
    if (this.toolCalls.length > 0) message.tool_calls = [...this.toolCalls];
    const result: ChatResult = { message, model: this.model, metrics: { ...this.metrics } };
    if (this.doneReason !== undefined) result.done_reason = this.doneReason;
    return result;
  }
}
