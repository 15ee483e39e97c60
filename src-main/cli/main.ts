import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { VERSION } from '../app/version';
import { estimateCommand } from './commands/estimate';
import { instancesCommand } from './commands/instances';
import { jobsCommand } from './commands/jobs';
import { llmserverListModelsCommand } from './commands/llmserver-list-models';
import { marketplaceListModelsCommand } from './commands/marketplace-list-models';
import { runAgenticAgentCommand } from './commands/run-agentic-agent';
import { runBenchmarkCommand } from './commands/run-benchmark';
import { runLlmserverInstanceCommand } from './commands/run-llmserver-instance';
import { runServingBenchmarkCommand } from './commands/run-serving-benchmark';
import { snapshotCommand } from './commands/snapshot';
import { agentsCommand } from './commands/agents';
import { templatesCommand } from './commands/templates';
import { runSuiteCommand, suitesCommand } from './commands/suites';
import { runSweepCommand, sweepsCommand } from './commands/sweeps';
import { examples } from './common';
import { reportError } from './errors';
import { EXIT } from './exit-codes';
import { err, note } from './output';
import { parsePort } from './parsers';
import { closest } from './suggest';

export { EXIT } from './exit-codes';

/**
 * The `benchdesk` command (design §7). Each command lives in commands/<name>.ts and reports its
 * exit code through `setExit`; a command that never calls it (`serve`) keeps the process running.
 */
export function buildCli(setExit: (code: number) => void): Command {
  const program = new Command('benchdesk')
    .description('Estimate, provision and benchmark LLM backends and agents on rented GPUs')
    .version(VERSION)
    // Options after a subcommand belong to the subcommand (`instances release 5 --json`).
    .enablePositionalOptions()
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)');

  program
    .command('serve')
    .description('run the headless API server and the browser UI (no window); prints the URL to open')
    .option('--host <host>', 'bind address (BENCHDESK_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port (BENCHDESK_PORT, default 8080)', parsePort)
    .option('--data-dir <dir>', 'data directory (BENCHDESK_DATA_DIR)')
    .addHelpText('after', examples('SERVICE_API_TOKENS="default:$(openssl rand -hex 24)" benchdesk serve --port 8080'))
    .action(async (opts) => {
      // Loaded on use: the server's modules (fastify, pino…) would slow every other command's start.
      const { runServe } = await import('./serve');
      await runServe(opts);
    });

  program
    .command('driver')
    .description('run an agent as a stdio driver process (JSON lines on stdin/stdout)')
    .argument('<agent>', 'builtin, holmes or k8sgpt')
    .addHelpText('after', examples(`echo '{"action":"info","params":{},"id":"1"}' | benchdesk driver builtin`))
    .action(async (agent) => {
      const { runDriverCommand } = await import('./driver');
      // Exit at once: idle keep-alive sockets would otherwise hold the process open after the answer.
      process.exit(await runDriverCommand(agent));
    });

  const commands: CommandUnknownOpts[] = [
    runLlmserverInstanceCommand(setExit),
    runAgenticAgentCommand(setExit),
    runBenchmarkCommand(setExit),
    marketplaceListModelsCommand(setExit),
    llmserverListModelsCommand(setExit),
    estimateCommand(setExit),
    jobsCommand(setExit),
    instancesCommand(setExit),
    snapshotCommand(setExit),
    agentsCommand(setExit),
    templatesCommand(setExit),
    runSuiteCommand(setExit),
    suitesCommand(setExit),
    runServingBenchmarkCommand(setExit),
    runSweepCommand(setExit),
    sweepsCommand(setExit),
  ] as CommandUnknownOpts[];
  for (const cmd of commands) program.addCommand(cmd as Command);

  // Every command reports usage errors the same way, and keeps options positional.
  const configure = (cmd: CommandUnknownOpts): void => {
    cmd.exitOverride().showHelpAfterError('(add --help for usage and examples)').enablePositionalOptions();
    for (const sub of cmd.commands) configure(sub);
  };
  for (const sub of program.commands) configure(sub);
  program.addHelpText(
    'after',
    `${examples(
      'benchdesk marketplace-list-models',
      'benchdesk run-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b -q "Which pods are unhealthy?"',
      'benchdesk jobs list --status running',
    )}
Talks to the running app's API (--api-url, default http://127.0.0.1:8080), or runs in this process with --local or
when nothing answers there. Exit codes: 0 success, 1 job or service failure, 2 usage error, 130 interrupted.
`,
  );
  return program as unknown as Command;
}

function namesOf(cmd: CommandUnknownOpts): string[] {
  return [cmd.name(), ...cmd.aliases()];
}

/** Options of `cmd` that consume the next argument (`--tenant x`), by every spelling. */
function valueOptions(cmd: CommandUnknownOpts): Set<string> {
  const set = new Set<string>();
  for (const opt of cmd.options) {
    if (!opt.required && !opt.optional) continue;
    if (opt.long) set.add(opt.long);
    if (opt.short) set.add(opt.short);
  }
  return set;
}

/**
 * Commander shows the parent's help (exit 0) for `benchdesk run-benchmrk --help`, as if the
 * command existed. Walk the command words first: an unknown one is a usage error naming it and
 * the closest real command.
 */
function unknownCommand(program: CommandUnknownOpts, argv: readonly string[]): string | undefined {
  let cmd = program;
  let path = 'benchdesk';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return undefined;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && valueOptions(cmd).has(arg)) i++;
      continue;
    }
    if (cmd.commands.length === 0) return undefined;
    if (cmd === program && arg === 'help') {
      const target = argv.slice(i + 1).find((a) => !a.startsWith('-'));
      if (target === undefined) return undefined;
      return cmd.commands.some((c) => namesOf(c).includes(target)) ? undefined : describeUnknown(target, cmd, path);
    }
    const next = cmd.commands.find((c) => namesOf(c).includes(arg));
    if (!next) {
      // `instances` has its own action with no arguments: any other word is still an unknown command.
      return describeUnknown(arg, cmd, path);
    }
    cmd = next;
    path = `${path} ${next.name()}`;
  }
  return undefined;
}

function describeUnknown(word: string, parent: CommandUnknownOpts, path: string): string {
  const names = parent.commands.map((c) => c.name()).filter((n) => n !== 'help');
  const best = closest(word, parent.commands.flatMap(namesOf).filter((n) => n !== 'help'));
  return `unknown command '${word}' for '${path}'. Did you mean '${best ?? names[0]}'?\nCommands: ${names.join(', ')} (see ${path} --help)`;
}

/**
 * Runs the CLI; resolves with the exit code, or null when the command keeps running (`serve`).
 */
export async function runCli(argv: readonly string[]): Promise<number | null> {
  let code: number | null = null;
  const program = buildCli((c) => {
    code = c;
  });
  const json = argv.includes('--json');
  const unknown = unknownCommand(program as CommandUnknownOpts, argv);
  if (unknown) {
    note(`${err.red('benchdesk:')} ${unknown}`);
    return EXIT.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version "fail" with exit code 0; anything else commander rejects is usage.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(e, json);
  }
}
