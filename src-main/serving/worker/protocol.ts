/**
 * The messages between the serving job (main thread) and its load generator (a worker thread):
 * plain data only, structured-cloned. See worker/source.ts for the worker and worker/runner.ts
 * for the main thread's side.
 */

/** How the worker reaches the server and reads its streamed answers. */
export type WorkerTarget = {
  /** `http://host:port` (no credentials: they travel in `headers`). */
  origin: string;
  /** The request path with the server's prefix, e.g. `/api/chat`, `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  /** Ollama NDJSON, or OpenAI SSE of chat chunks (`delta.content`) or of completion chunks (`text`). */
  stream: 'ndjson' | 'sse-chat' | 'sse-completions';
};

/** What bounds one request's answer: a backend cannot grow the process without limit. */
export type WorkerLimits = {
  /** Bytes between two line ends (an NDJSON line, an SSE line). */
  lineBytes: number;
  /** Bytes of one response body. */
  responseBytes: number;
  /**
   * Chunks with text one request may stream, per token it asked for (plus 16): a chunk carries at
   * least one token, and an engine that streams more is not generating what was asked.
   */
  textChunksPerToken: number;
  /** Bytes kept of an error answer's body (for its message). */
  errorBodyBytes: number;
};

export type WorkerLevelPlan = {
  /** 1-based level number (records carry it). */
  level: number;
  /** Requests run first, the same way, and left out. */
  warmup: number;
  /** Measured requests; null when `durationMs` bounds the level instead. */
  count: number | null;
  /** Closed loop: starts no measured request after this long from the level's start (ms). */
  durationMs: number | null;
  /** Closed loop: requests in flight. Rate mode: the cap on them (0 = none). */
  concurrency: number;
  /** Rate mode: when each measured request is due, ms from the level's start; null = closed loop. */
  offsetsMs: number[] | null;
  requestTimeoutMs: number;
  levelTimeoutMs: number;
  /** The level stops when this many requests in a row, from its start, all failed. */
  failFast: number;
};

/** One request to send: its JSON body and what it asked for (records echo them). */
export type WorkerBody = { body: string; askedTokens: number; promptTokens: number };

export type MainToWorker =
  | { type: 'init'; target: WorkerTarget; limits: WorkerLimits }
  | { type: 'level'; plan: WorkerLevelPlan }
  | { type: 'bodies'; bodies: WorkerBody[] }
  | { type: 'cancel'; reason: string };

/** One finished request as the worker saw it; times in ms on the worker's clock. */
export type WorkerRecord = {
  level: number;
  /** Measured requests are numbered from 0 in start order. */
  seq: number;
  /** When it was sent, from the level's start (its first measured request). */
  startedAtMs: number;
  /** Sent → first chunk with text; null when none came. */
  ttftMs: number | null;
  /** Sent → the answer's end; null when it failed. */
  e2eMs: number | null;
  /** Gaps between successive chunks with text. */
  itlMs: number[];
  textChunks: number;
  askedTokens: number;
  promptTokens: number;
  finishReason: string | null;
  error: string | null;
  /** Ollama's final `done:true` chunk, or an OpenAI `usage` object: validated by the main thread. */
  final: unknown;
};

export type LevelDone = {
  level: number;
  /** First measured request sent → last one finished. */
  durationMs: number;
  /** Measured requests started, and the first and last start (ms from the level's start). */
  started: number;
  firstStartMs: number | null;
  lastStartMs: number | null;
  /** Why the level stopped starting requests early; null when it ran through. */
  stopped: string | null;
};

export type WorkerToMain =
  | { type: 'need'; count: number }
  | { type: 'records'; records: WorkerRecord[] }
  | { type: 'level-done'; done: LevelDone }
  | { type: 'fatal'; message: string };
