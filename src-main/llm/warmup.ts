import type { ModelEntry } from '../../shared/models';
import type { OllamaGenerateResponse } from './ollama-wire';
import { DEFAULT_WARMUP_TIMEOUT_S } from '../../shared/requests';
import { LlmAbortedError, WarmupTimeoutError } from './errors';
import { sameModel } from './model-name';
import { roundMs } from '../events/timed';

export interface WarmupOptions {
  /** Ollama keep_alive for the loaded model; default "30m". Negative: keep loaded. */
  keepAlive?: string | number;
  /** Budget for load + polling, in ms; default DEFAULT_WARMUP_TIMEOUT_S. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Gap between /api/ps polls, in ms; default 1000. */
  pollIntervalMs?: number;
}

export interface WarmupResult {
  /** The model as /api/ps names it (e.g. `llama3:latest` for a requested `llama3`). */
  model: string;
  running: ModelEntry;
  duration_ms: number;
  /** Ollama's load_duration in ns; undefined when the model was already warm (omitempty). */
  load_duration?: number;
  polls: number;
}

/** The two client calls warm-up needs; a seam for tests. */
export interface WarmupPort {
  readonly baseUrl: string;
  load(model: string, options: { keepAlive?: string | number; signal?: AbortSignal; timeoutMs?: number }): Promise<OllamaGenerateResponse>;
  runningModels(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<ModelEntry[]>;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;
/** A single /api/ps answer should be quick even while a model loads. */
const MAX_POLL_CALL_MS = 30_000;

/**
 * Asks Ollama to load `model` (its /api/generate answers once the model is in memory), then polls
 * /api/ps until the model is listed, so the first real request does not pay the load. One
 * deadline bounds the whole thing, including a load call that never answers.
 */
export async function warmupModel(port: WarmupPort, model: string, options: WarmupOptions = {}): Promise<WarmupResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WARMUP_TIMEOUT_S * 1000;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const callerSignal = options.signal;
  const started = Date.now();

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new WarmupTimeoutError(port.baseUrl, model, timeoutMs)), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;

  try {
    const loaded = await port.load(model, { keepAlive: options.keepAlive ?? '30m', signal, timeoutMs: Infinity });
    for (let polls = 1; ; polls++) {
      const running = await port.runningModels({ signal, timeoutMs: MAX_POLL_CALL_MS });
      const entry = running.find((m) => sameModel(m.name, model));
      if (entry) {
        const result: WarmupResult = { model: entry.name, running: entry, duration_ms: roundMs(Date.now() - started), polls };
        if (loaded.load_duration !== undefined) result.load_duration = loaded.load_duration;
        return result;
      }
      await sleep(pollIntervalMs, signal);
    }
  } catch (error) {
    if (callerSignal?.aborted) {
      throw error instanceof LlmAbortedError ? error : new LlmAbortedError(port.baseUrl, { cause: callerSignal.reason });
    }
    if (deadline.signal.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
