import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { VERSION } from '../app/start';
import { runServe } from './serve';

export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return port;
}

/** The `benchdesk` command. Job commands (run-*, jobs, estimate…) arrive in the CLI step. */
export function buildCli(): Command {
  const program = new Command('benchdesk')
    .description('Estimate, provision and benchmark LLM backends and agents on rented GPUs')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();

  program
    .command('serve')
    .description('run the headless API server (the API without a window)')
    .option('--host <host>', 'bind address (BENCHDESK_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port (BENCHDESK_PORT, default 8080)', parsePort)
    .option('--data-dir <dir>', 'data directory (BENCHDESK_DATA_DIR)')
    .action(async (opts: { host?: string; port?: number; dataDir?: string }) => {
      await runServe(opts);
    });

  program
    .command('driver')
    .description('run an agent as a stdio driver process (JSON lines on stdin/stdout)')
    .argument('<agent>', 'builtin, holmes or k8sgpt')
    .action(async (agent: string) => {
      const { runDriverCommand } = await import('./driver');
      // Exit at once: idle keep-alive sockets would otherwise hold the process open after the answer.
      process.exit(await runDriverCommand(agent));
    });

  return program;
}

export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "fail" with exit code 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    console.error(`benchdesk: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.failure;
  }
}
