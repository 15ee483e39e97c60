import { AgentError, isAgentError } from '../errors';
import { runProcess, type ProcessOutcome } from '../process-runner';

/** What the holmes and k8sgpt drivers share: running their CLI with the driver's limits. */

/** Inside a driver process, below the parent's 300 s so the driver can still answer with a clear error. */
export const DEFAULT_CLI_TIMEOUT_MS = 280_000;

export type CliDriverOptions = {
  /** Base environment of the CLI (default process.env). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  killGraceMs?: number;
  /** The CLI's stderr, line by line (the driver forwards it to its own stderr). */
  onStderrLine?: (line: string) => void;
  /** Where temporary files go (default os.tmpdir()). */
  tmpDir?: string;
  /**
   * `inherit` inside a `benchdesk driver` process: the CLI stays in the driver's process group, so
   * the server's stop of that group reaches it and its children (see RunProcessOptions.processGroup).
   */
  processGroup?: 'own' | 'inherit';
};

export async function runCli(
  argv: string[],
  opts: CliDriverOptions & { label: string; installHint: string; env: NodeJS.ProcessEnv; deadline: number; maxStdoutBytes: number; truncateStdout?: boolean },
): Promise<ProcessOutcome> {
  const remaining = opts.deadline - Date.now();
  if (remaining <= 0) throw new AgentError('timeout', `${opts.label} ran out of time`);
  try {
    return await runProcess({
      argv,
      label: opts.label,
      env: opts.env,
      timeoutMs: remaining,
      killGraceMs: opts.killGraceMs,
      maxStdoutBytes: opts.maxStdoutBytes,
      truncateStdout: opts.truncateStdout,
      signal: opts.signal,
      onStderrLine: opts.onStderrLine,
      processGroup: opts.processGroup,
    });
  } catch (err) {
    if (isAgentError(err, 'spawn_failed') && (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      throw new AgentError('not_installed', `${argv[0]} is not installed or not on PATH; ${opts.installHint}`, {}, { cause: err });
    }
    throw err;
  }
}
