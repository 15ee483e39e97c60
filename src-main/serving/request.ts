import { z } from 'zod';
import type { ServingRequestRecord } from '../../shared';
import { OllamaMetricsSchema } from '../llm/ollama-wire';
import { OpenAiUsageSchema } from '../llm/openai-wire';
import type { WorkerRecord } from './worker/protocol';

/**
 * One measured request, as the level's figures use it. The worker times it (definitions are
 * vLLM benchmark_serving's):
 * - TTFT: request sent (its body handed to the socket) → the first chunk with generated text
 *   (content, or a thinking model's reasoning). A role-only first chunk (vLLM's chat API) does not
 *   count: vLLM's own chat client does count it (see docs/serving.md);
 * - ITL: the gaps between successive chunks with text;
 * - e2e: request sent → the answer's last event;
 * - TPOT: (e2e − TTFT) / (output tokens − 1).
 * Output tokens are the server's count: Ollama's final `eval_count`, OpenAI's `usage.completion_tokens`;
 * a server that gives neither is counted one token per chunk with text. The final chunk (the only
 * one the worker does not read cheaply) is validated here.
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
  /** What the request asked for (max_tokens / num_predict). */
  askedTokens: number;
  /** Ollama's own counters of the final chunk (eval_duration in ns); null elsewhere. */
  evalCount: number | null;
  evalDurationNs: number | null;
  startedAtMs: number;
  finishReason: string | null;
};
export type RequestFailure = { ok: false; error: string; startedAtMs: number; ttftMs: number | null };
export type RequestOutcome = RequestSample | RequestFailure;

const FinalSchema = z.union([OllamaMetricsSchema.extend({ done: z.literal(true) }), OpenAiUsageSchema]);

/** A worker's record as an outcome: its final chunk validated, the server's counts taken. */
export function toOutcome(record: WorkerRecord): RequestOutcome {
  const fail = (error: string): RequestFailure => ({ ok: false, error, startedAtMs: record.startedAtMs, ttftMs: record.ttftMs });
  if (record.error !== null) return fail(record.error);
  if (record.ttftMs === null || record.e2eMs === null) return fail('the answer carried no generated text');
  let evalCount: number | null = null;
  let evalDurationNs: number | null = null;
  let promptTokens: number | null = null;
  if (record.final !== null && record.final !== undefined) {
    const parsed = FinalSchema.safeParse(record.final);
    if (!parsed.success) return fail(`the answer's final chunk is not what the API documents: ${z.prettifyError(parsed.error)}`);
    const final = parsed.data;
    if ('done' in final) {
      evalCount = final.eval_count ?? null;
      evalDurationNs = final.eval_duration ?? null;
      promptTokens = final.prompt_eval_count ?? null;
    } else {
      evalCount = final.completion_tokens ?? null;
      promptTokens = final.prompt_tokens ?? null;
    }
  }
  const outputTokens = evalCount ?? record.textChunks;
  const isOllama = record.final !== null && typeof record.final === 'object' && 'done' in record.final;
  return {
    ok: true,
    ttftMs: record.ttftMs,
    e2eMs: record.e2eMs,
    tpotMs: outputTokens > 1 ? (record.e2eMs - record.ttftMs) / (outputTokens - 1) : null,
    itlMs: record.itlMs,
    outputTokens,
    promptTokens: promptTokens ?? record.promptTokens,
    askedTokens: record.askedTokens,
    evalCount: isOllama ? evalCount : null,
    evalDurationNs,
    startedAtMs: record.startedAtMs,
    finishReason: record.finishReason,
  };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The row of `GET /v1/jobs/{id}/requests` (design §13b). */
export function requestRecord(level: number, outcome: RequestOutcome, itlCount: number): ServingRequestRecord {
  return {
    level,
    started_at_ms: round3(Math.max(0, outcome.startedAtMs)),
    ttft_ms: outcome.ttftMs === null ? null : round3(outcome.ttftMs),
    e2e_ms: outcome.ok ? round3(outcome.e2eMs) : null,
    output_tokens: outcome.ok ? outcome.outputTokens : null,
    itl_count: outcome.ok ? itlCount : 0,
    finish_reason: outcome.ok ? outcome.finishReason : null,
    error: outcome.ok ? null : outcome.error,
  };
}
