import type { AgentJobErrorCode } from '../../shared/job-errors';

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

/**
 * The kind of failure a driver reports in its error line (`{"status":"error","error","code"}`),
 * so "not installed", "timed out", "bad output" and "the agent failed" survive the protocol.
 */
export const DRIVER_WIRE_ERROR_CODES = ['not_installed', 'timeout', 'bad_output', 'failed'] as const;
export type DriverWireErrorCode = (typeof DRIVER_WIRE_ERROR_CODES)[number];

const KIND_OF: Record<AgentErrorCode, DriverWireErrorCode | 'cancelled'> = {
  unknown_agent: 'not_installed',
  invalid_driver: 'not_installed',
  spawn_failed: 'not_installed',
  not_installed: 'not_installed',
  timeout: 'timeout',
  no_output: 'bad_output',
  invalid_json: 'bad_output',
  invalid_response: 'bad_output',
  id_mismatch: 'bad_output',
  output_too_large: 'bad_output',
  invalid_params: 'failed',
  exit_nonzero: 'failed',
  driver_error: 'failed',
  kubeconfig: 'failed',
  llm: 'failed',
  http: 'failed',
  cancelled: 'cancelled',
};

/** What a driver process says about an error it answers with (anything not an AgentError: the agent failed). */
export function driverWireCode(err: unknown): DriverWireErrorCode {
  const kind = err instanceof AgentError ? KIND_OF[err.code] : 'failed';
  return kind === 'cancelled' ? 'failed' : kind;
}

/** The AgentError code for a driver's wire code (absent or unknown: it failed). */
export function agentCodeOfWire(code: string | null | undefined): AgentErrorCode {
  switch (code) {
    case 'not_installed':
      return 'not_installed';
    case 'timeout':
      return 'timeout';
    case 'bad_output':
      return 'invalid_response';
    default:
      return 'driver_error';
  }
}

/** A job's error_code for an agent failure (see shared/job-errors.ts for their wording). */
export function jobErrorCodeOf(err: unknown): AgentJobErrorCode {
  switch (err instanceof AgentError ? KIND_OF[err.code] : 'failed') {
    case 'not_installed':
      return 'agent_not_installed';
    case 'timeout':
      return 'agent_timeout';
    case 'bad_output':
      return 'agent_bad_output';
    default:
      return 'agent_failed';
  }
}

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
