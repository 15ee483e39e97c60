import { randomUUID } from 'node:crypto';
import { DriverResponseSchema } from './driver-wire';
import { AgentError, agentCodeOfWire, stderrExcerpt } from './errors';
import { exitFailure, runProcess, type ProcessOutcome } from './process-runner';
import { DEFAULT_DRIVER_TIMEOUT_MS, type DriverCallOptions, type DriverTransport } from './transport';

/**
 * The stdio driver transport of design §5: one process per call, one JSON request line on stdin,
 * one JSON response line on stdout. The response id must echo the request id, so a driver that
 * answers someone else's request (or a stale line) is caught.
 */

export const DEFAULT_MAX_DRIVER_STDOUT_BYTES = 4 * 1024 * 1024;
/** After its response line, how long a driver may take to exit before it is stopped. */
export const DEFAULT_EXIT_GRACE_MS = 2000;

export type StdioTransportOptions = {
  /** argv of the driver; see splitCommandLine for settings strings. */
  command: readonly string[];
  /** Used in messages, e.g. "driver 'myagent'". */
  label?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  killGraceMs?: number;
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
  exitGraceMs?: number;
};

function firstLine(stdout: string): string | null {
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (line.length > 0) return line;
  }
  return null;
}

function snippet(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export class StdioDriverTransport implements DriverTransport {
  readonly description: string;
  private readonly label: string;

  constructor(private readonly options: StdioTransportOptions) {
    if (options.command.length === 0) throw new AgentError('invalid_driver', 'driver command is empty');
    this.description = options.command.join(' ');
    this.label = options.label ?? `driver '${options.command[0]}'`;
  }

  async call(action: string, params: Record<string, unknown>, callOptions: DriverCallOptions = {}): Promise<unknown> {
    const id = randomUUID();
    const outcome = await runProcess({
      argv: this.options.command,
      label: this.label,
      env: this.options.env,
      cwd: this.options.cwd,
      input: `${JSON.stringify({ action, params, id })}\n`,
      timeoutMs: callOptions.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS,
      killGraceMs: this.options.killGraceMs,
      maxStdoutBytes: this.options.maxStdoutBytes ?? DEFAULT_MAX_DRIVER_STDOUT_BYTES,
      maxStderrBytes: this.options.maxStderrBytes,
      signal: callOptions.signal,
      onStderrLine: callOptions.onStderr,
      // A temporary directory per call (TMPDIR): removed with the driver's whole process group, even one that was killed.
      tempDir: true,
      stopAfterOutput: { done: (stdout) => firstLine(stdout) !== null && /\S[^\n]*\n/.test(stdout), graceMs: this.options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS },
    });
    return this.parse(outcome, id);
  }

  private parse(outcome: ProcessOutcome, id: string): unknown {
    // A driver stopped by us after it answered did not fail.
    const failed = outcome.exitCode !== 0 && !outcome.lingered;
    const line = firstLine(outcome.stdout);
    if (line === null) {
      if (failed) throw exitFailure(this.label, outcome);
      throw new AgentError('no_output', `${this.label} exited without writing a response line${this.stderrNote(outcome)}`, {
        exitCode: outcome.exitCode,
        stderrTail: outcome.stderrTail,
      });
    }

    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      if (failed) throw exitFailure(this.label, outcome);
      throw new AgentError('invalid_json', `${this.label} wrote a response that is not JSON: ${snippet(line)}`, {
        exitCode: outcome.exitCode,
        stderrTail: outcome.stderrTail,
      });
    }

    const parsed = DriverResponseSchema.safeParse(json);
    if (!parsed.success) {
      if (failed) throw exitFailure(this.label, outcome);
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw new AgentError(
        'invalid_response',
        `${this.label} wrote a response that does not follow the driver protocol (${where}${issue?.message ?? 'invalid'}): ${snippet(line)}`,
        { exitCode: outcome.exitCode, stderrTail: outcome.stderrTail },
      );
    }
    const response = parsed.data;
    if (response.id !== id) {
      throw new AgentError('id_mismatch', `${this.label} answered request id '${snippet(response.id, 80)}' instead of '${id}'`, {
        exitCode: outcome.exitCode,
        stderrTail: outcome.stderrTail,
      });
    }
    if (response.status === 'error') {
      throw new AgentError(agentCodeOfWire(response.code), `${this.label} reported an error: ${response.error || '(no message)'}`, {
        exitCode: outcome.exitCode,
        stderrTail: outcome.stderrTail,
      });
    }
    // An answer followed by a crash is not trusted: the driver may have been cut short.
    if (failed) throw exitFailure(this.label, outcome, 'answered but then failed');
    return response.result;
  }

  private stderrNote(outcome: ProcessOutcome): string {
    const excerpt = stderrExcerpt(outcome.stderrTail, 1000);
    return excerpt ? `; stderr: ${excerpt}` : '';
  }
}
