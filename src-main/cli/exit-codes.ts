/** The CLI's exit codes (design §7): scripts branch on them, so they never change meaning. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A failure the CLI reports with a message and a chosen exit code (no stack trace). Commands
 * throw it; main prints `benchdesk: <message>` on stderr and exits with `exitCode`.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong invocation: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
