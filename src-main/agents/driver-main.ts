import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { DRIVER_ACTIONS, DRIVER_EVENT_PREFIX, DriverAskParamsSchema, DriverRequestSchema, type DriverAskParams, type DriverInfo, type DriverResponse } from './driver-wire';
import { type AgentResult } from '../../shared/results';
import { askBuiltin, type LlmFactory } from './builtin';
import { askHolmes } from './drivers/holmes';
import { askK8sgpt } from './drivers/k8sgpt';
import { driverWireCode, errorMessage } from './errors';
import type { AgentEvent } from './events';
import { AGENT_TIMEOUT_ENV, DRIVER_VERSION } from './transport';

/**
 * The driver side of the stdio protocol (`benchdesk driver <agent>`): reads request lines from
 * stdin, answers each with exactly one response line on stdout, exits at EOF. stdout carries
 * nothing else; diagnostics and the built-in agent's events (DRIVER_EVENT_PREFIX lines) go to stderr.
 */

export const BUNDLED_DRIVER_NAMES = ['builtin', 'holmes', 'k8sgpt'] as const;
export type BundledDriverName = (typeof BUNDLED_DRIVER_NAMES)[number];
const MAX_REQUEST_CHARS = 1024 * 1024;

export type DriverIo = { stdin: Readable; stdout: Writable; stderr: Writable };

export type RunDriverOptions = {
  /** Environment of the wrapped CLIs (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The built-in agent's LLM client (default: LlmServerClient on params.backend_url). */
  llmFactory?: LlmFactory;
  /** Time limit of one holmes/k8sgpt run inside the driver (default: BENCHDESK_AGENT_TIMEOUT_MS, else 280 s). */
  cliTimeoutMs?: number;
  /** Send console.log/info/debug to stderr while serving, so a library's stray log cannot break the protocol (default true). */
  protectStdout?: boolean;
};

type AskContext = { stderrLine: (line: string) => void; event: (e: AgentEvent) => void };

/** Points console.log/info/debug at `stream`; returns the undo. stdout belongs to the protocol. */
function routeConsoleTo(stream: Writable): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStream = (...args: unknown[]): void => {
    stream.write(`${format(...args)}\n`);
  };
  console.log = toStream;
  console.info = toStream;
  console.debug = toStream;
  return () => Object.assign(console, saved);
}

function isBundled(name: string): name is BundledDriverName {
  return (BUNDLED_DRIVER_NAMES as readonly string[]).includes(name);
}

function writeLine(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(`${text}\n`, (err) => (err ? reject(err) : resolve()));
  });
}

function issuesText(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function ask(name: BundledDriverName, params: DriverAskParams, ctx: AskContext, options: RunDriverOptions): Promise<AgentResult> {
  switch (name) {
    case 'builtin':
      return askBuiltin(params, { llmFactory: options.llmFactory, onEvent: ctx.event });
    // The CLI stays in this driver's process group: the server stops that whole group on cancel,
    // timeout and shutdown, and a group of its own would outlive this process.
    case 'holmes':
      return askHolmes(params, { env: options.env, timeoutMs: options.cliTimeoutMs, onStderrLine: ctx.stderrLine, processGroup: 'inherit' });
    case 'k8sgpt':
      return askK8sgpt(params, { env: options.env, timeoutMs: options.cliTimeoutMs, onStderrLine: ctx.stderrLine, processGroup: 'inherit' });
  }
}

async function handleLine(name: BundledDriverName, line: string, ctx: AskContext, options: RunDriverOptions): Promise<DriverResponse> {
  if (line.length > MAX_REQUEST_CHARS) return { status: 'error', error: `request line longer than ${MAX_REQUEST_CHARS} characters`, id: '' };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return { status: 'error', error: `invalid JSON request: ${errorMessage(err)}`, id: '' };
  }
  const request = DriverRequestSchema.safeParse(json);
  if (!request.success) {
    const rawId = typeof json === 'object' && json !== null && 'id' in json ? (json as { id: unknown }).id : undefined;
    return { status: 'error', error: `invalid request: ${issuesText(request.error.issues)}`, id: typeof rawId === 'string' ? rawId : '' };
  }
  const { action, params, id } = request.data;
  if (action === 'info') {
    const info: DriverInfo = { name, version: DRIVER_VERSION, actions: [...DRIVER_ACTIONS] };
    return { status: 'ok', result: info, id };
  }
  if (action !== 'ask') {
    return { status: 'error', error: `unknown action '${action}'; supported actions: ${DRIVER_ACTIONS.join(', ')}`, id };
  }
  const askParams = DriverAskParamsSchema.safeParse(params);
  if (!askParams.success) return { status: 'error', error: `invalid ask params: ${issuesText(askParams.error.issues)}`, id };
  try {
    return { status: 'ok', result: await ask(name, askParams.data, ctx, options), id };
  } catch (err) {
    // The kind travels with the message: "not installed" must not arrive as "the agent failed".
    return { status: 'error', error: errorMessage(err), code: driverWireCode(err), id };
  }
}

/**
 * Serves requests until stdin ends. Returns the process exit code: 0, or 2 for an unknown driver
 * name (after a message on stderr). The CLI does `process.exitCode = await runDriver(name, io)`.
 */
export async function runDriver(name: string, io: DriverIo, options: RunDriverOptions = {}): Promise<number> {
  if (!isBundled(name)) {
    await writeLine(io.stderr, `benchdesk driver: unknown agent '${name}'; available: ${BUNDLED_DRIVER_NAMES.join(', ')}`);
    return 2;
  }
  const envTimeout = Number((options.env ?? process.env)[AGENT_TIMEOUT_ENV]);
  const effective: RunDriverOptions = {
    ...options,
    cliTimeoutMs: options.cliTimeoutMs ?? (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : undefined),
  };
  const ctx: AskContext = {
    stderrLine: (line) => {
      io.stderr.write(`${line}\n`);
    },
    event: (e) => {
      io.stderr.write(`${DRIVER_EVENT_PREFIX}${JSON.stringify(e)}\n`);
    },
  };
  const restoreConsole = options.protectStdout === false ? () => {} : routeConsoleTo(io.stderr);
  try {
    const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
    // One request at a time: responses come back in request order.
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const response = await handleLine(name, line, ctx, effective);
      await writeLine(io.stdout, JSON.stringify(response));
    }
    return 0;
  } finally {
    restoreConsole();
  }
}
