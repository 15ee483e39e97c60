/**
 * The chat contract the built-in agent codes against. LlmServerClient implements it over
 * Ollama's /api/chat, OpenAiClient over /v1/chat/completions; tests may implement it with a stub.
 * Field names follow Ollama's wire format where one exists, so transcripts read the same in logs
 * and in Ollama's docs; the OpenAI client translates (openai-chat-wire.ts).
 */

/** One tool call requested by the model. `arguments` is always an object (Ollama's native form). */
export interface ChatToolCall {
  /** `call_xxxxxxxx` on current servers; absent on older ones. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}
export interface UserMessage {
  role: 'user';
  content: string;
}
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  /** Reasoning text of thinking models, when the server returns it. */
  thinking?: string;
  tool_calls?: ChatToolCall[];
}
/** The result of one tool call, sent back to the model. */
export interface ToolMessage {
  role: 'tool';
  content: string;
  /** The called tool's name: Ollama matches results to calls by it. */
  tool_name: string;
  tool_call_id?: string;
}
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A JSON-schema property as Ollama's tool definitions carry it. */
export interface ToolParameterSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: unknown;
}

/** A tool in Ollama's `{type:"function", function:{name, description, parameters}}` form. */
export interface ChatToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, ToolParameterSchema>;
      required?: string[];
    };
  };
}

/** Sampling options passed through as Ollama's `options`. */
export interface ChatModelOptions {
  temperature?: number;
  num_ctx?: number;
  num_predict?: number;
  seed?: number;
  top_k?: number;
  top_p?: number;
  min_p?: number;
  repeat_penalty?: number;
  stop?: string[];
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatToolDefinition[];
  signal?: AbortSignal;
  options?: ChatModelOptions;
  /** Ollama duration string ("30m") or seconds; negative keeps the model loaded. */
  keepAlive?: string | number;
  /**
   * Default true. Streaming avoids Node fetch's 300 s headers timeout on long turns, and the
   * timeout then bounds the silence between chunks rather than the whole answer.
   */
  stream?: boolean;
  /** Per-call timeout in ms (whole call when not streamed, idle gap when streamed). */
  timeoutMs?: number;
  /** A streamed call's bound on the whole answer, however it trickles (default DEFAULT_TURN_DEADLINE_MS). */
  deadlineMs?: number;
  /** Streamed text as it arrives (content and/or thinking deltas). */
  onDelta?: (delta: { content?: string; thinking?: string }) => void;
  /** Told when the request is handed to the network, its body built (what "request sent" means when timing it). */
  onSend?: () => void;
  think?: boolean;
}

/** Ollama's counters; fields the server omitted (omitempty) are undefined. Durations in ns. */
export interface ChatMetrics {
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
  total_duration?: number;
  load_duration?: number;
}

export interface ChatResult {
  /** Append this to the history as is before sending tool results. */
  message: AssistantMessage;
  /** "stop", "length", ...; Ollama keeps "stop" when tools are called. */
  done_reason?: string;
  /** The model name as the server echoed it. */
  model: string;
  metrics: ChatMetrics;
}

/**
 * What the agent needs from an LLM backend. Throws ToolsUnsupportedError when `tools` were sent
 * to a model without tool support, ModelNotFoundError, LlmServerUnreachableError, LlmAbortedError
 * (see ./errors).
 */
export interface LlmChat {
  chat(request: ChatRequest): Promise<ChatResult>;
}
