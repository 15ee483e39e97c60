/**
 * One error type for everything that goes wrong while asking an agent, with a stable `code` the
 * engine can turn into a job's error_code and a message that stands on its own for the user.
 */
export const AGENT_ERROR_CODES = [
  'unknown_agent',
  'invalid_driver',
  'invalid_params',
  'spawn_failed',
  'exit_nonzero',
  'no_output',
  'invalid_json',
  'invalid_response',
  'id_mismatch',
  'driver_error',
  'output_too_large',
  'timeout',
  'cancelled',
  'not_installed',
  'kubeconfig',
  'llm',
  'http',
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

export type AgentErrorDetails = {
  exitCode?: number | null;
  exitSignal?: string | null;
  stderrTail?: string;
};

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    readonly details: AgentErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentError';
  }
}

export function isAgentError(err: unknown, code?: AgentErrorCode): err is AgentError {
  return err instanceof AgentError && (code === undefined || err.code === code);
}

/** The last lines of a stderr tail, short enough to sit inside an error message. */
export function stderrExcerpt(stderrTail: string, maxChars = 2000): string {
  const trimmed = stderrTail.trimEnd();
  if (trimmed.length <= maxChars) return trimmed;
  const cut = trimmed.slice(trimmed.length - maxChars);
  const nl = cut.indexOf('\n');
  return '…' + (nl >= 0 && nl < 200 ? cut.slice(nl + 1) : cut);
}

/** `message` of any thrown value, for wrapping. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "300 ms" / "300 s", for time limits in messages. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}
