/**
 * What one answer of an llmserver may cost this process (issue 34: no backend can bloat the
 * server). Every reader counts bytes against these caps: an endless stream, a line without an end,
 * or an error page of a gigabyte ends its own request with LlmResponseTooLargeError.
 */
const MiB = 1024 * 1024;

export const STREAM_LIMITS = {
  /** One NDJSON or SSE line: a chunk of Ollama or OpenAI is a few hundred bytes; a non-streamed list or warm-up answer fits too. */
  lineBytes: 1 * MiB,
  /** A whole response body (lists, a non-streamed chat, a stream of chunks). */
  responseBytes: 32 * MiB,
  /** An agent's streamed chat turn: its text and tool calls (tens of thousands of tokens of chunks). */
  chatResponseBytes: 4 * MiB,
  /** A pull's progress lines (hundreds to tens of thousands of lines of ~150 bytes for the largest models). */
  pullResponseBytes: 16 * MiB,
  /** What is kept of an error answer, for its message. */
  errorBodyBytes: 64 * 1024,
  /** The serving generator's line cap: its chunks are small, and 64 streams share the process. */
  servingLineBytes: 1 * MiB,
} as const;

/** An agent's turn (one chat call) may take this long in all, however it streams. */
export const DEFAULT_TURN_DEADLINE_MS = 600_000;
