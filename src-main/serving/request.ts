import type { LlmChat } from '../llm/chat-types';

/**
 * One timed serving request: a streamed /api/chat with `options.num_predict`, every chunk timed
 * with performance.now() on arrival. Definitions are vLLM benchmark_serving's:
 * - TTFT: request sent (handed to the network, its body built, as vLLM starts its clock) → the first chunk with generated text (content, or a thinking model's
 *   thinking, which Ollama streams apart and counts in eval_count too);
 * - ITL: the gaps between successive chunks with generated text;
 * - e2e: request sent → the final chunk;
 * - TPOT: (e2e − TTFT) / (output tokens − 1), output tokens being the final chunk's eval_count.
 */

export type RequestSample = {
  ok: true;
  ttftMs: number;
  e2eMs: number;
  /** null with a single output token: there is no time per output token after the first. */
  tpotMs: number | null;
  itlMs: number[];
  outputTokens: number;
  promptTokens: number;
  /** Ollama's own counters of the final chunk (eval_duration in ns); null when the server left them out. */
  evalCount: number | null;
  evalDurationNs: number | null;
};
export type RequestFailure = { ok: false; error: string };
export type RequestOutcome = RequestSample | RequestFailure;

export type TimedChatInput = {
  model: string;
  prompt: string;
  outputTokens: number;
  /** Used when the server does not report prompt_eval_count. */
  promptTokensEstimate: number;
  signal: AbortSignal;
  now?: () => number;
};

/** Runs one request; a failure is returned (its message kept), an abort of `signal` is thrown. */
export async function timedChat(client: LlmChat, input: TimedChatInput): Promise<RequestOutcome> {
  const now = input.now ?? (() => performance.now());
  const itlMs: number[] = [];
  let first: number | null = null;
  let last = 0;
  let chunks = 0;
  // Restarted when the client hands the request to the network; before that it is building the request.
  let sent = now();
  try {
    const result = await client.chat({
      model: input.model,
      messages: [{ role: 'user', content: input.prompt }],
      options: { num_predict: input.outputTokens },
      stream: true,
      signal: input.signal,
      onSend: () => {
        sent = now();
      },
      onDelta: (delta) => {
        if (!delta.content && !delta.thinking) return;
        const t = now();
        if (first === null) first = t;
        else itlMs.push(t - last);
        last = t;
        chunks++;
      },
    });
    const end = now();
    if (first === null) return { ok: false, error: 'the answer carried no generated text' };
    const ttftMs = (first as number) - sent;
    const e2eMs = end - sent;
    const evalCount = result.metrics.eval_count ?? null;
    // Without the server's count, each chunk is one token (what Ollama streams).
    const outputTokens = evalCount ?? chunks;
    return {
      ok: true,
      ttftMs,
      e2eMs,
      tpotMs: outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null,
      itlMs,
      outputTokens,
      promptTokens: result.metrics.prompt_eval_count ?? input.promptTokensEstimate,
      evalCount,
      evalDurationNs: result.metrics.eval_duration ?? null,
    };
  } catch (err) {
    if (input.signal.aborted) throw input.signal.reason instanceof Error ? input.signal.reason : err;
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
