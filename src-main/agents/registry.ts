import type { AgentResult } from '../../shared/results';
import { AgentNameSchema, DriverCommandLineSchema, type DriverInfo } from './driver-wire';
import type { BuiltinAskOptions } from './builtin';
import { CommandLineError, splitCommandLine } from './command-line';
import { agentEnvironment } from './driver-env';
import { AgentError, errorMessage } from './errors';
import type { AgentEventSink } from './events';
import { HttpDriverTransport } from './http-transport';
import { IN_PROCESS_DRIVER_NAMES, inProcessDriver } from './in-process-driver';
import { resolvedAgent } from './resolved-agent';
import { StdioDriverTransport } from './stdio-transport';
import { AGENT_TIMEOUT_ENV, DEFAULT_DRIVER_TIMEOUT_MS, type DriverTransport } from './transport';

/**
 * Which agents exist and how to ask each (design §5): `builtin` in-process, `holmes` and `k8sgpt`
 * as our own driver processes (`<selfCommand> driver <name>`), and user drivers from settings
 * (`{name: commandLine}`) and the environment (`BENCHDESK_DRIVER_<NAME>=<command line>`; a value
 * starting with http:// or https:// is an HTTP driver). Environment beats settings beats the
 * bundled holmes/k8sgpt drivers; `builtin` cannot be replaced. Every ask is recorded as a timed
 * `agent.ask` event, and every result is validated and completed to the design §4 shape.
 */

export const ENV_DRIVER_PREFIX = 'BENCHDESK_DRIVER_';
/** Settings that share the prefix but are not drivers. */
const CHILD_TIMEOUT_MARGIN_MS = 15_000;

/** What the engine hands over; kubeconfig and backend_type may be left to their defaults. */
export type AgentAskParams = {
  question: string;
  model: string;
  kubeconfig?: string | null;
  backend_type?: 'llmserver' | 'ollama';
  backend_url: string;
  /** Sampling, sent to the model (the built-in agent) or handed to the driver. */
  temperature?: number;
  seed?: number;
  /** The API the server speaks, as the job resolved it (default ollama). */
  backend_api?: 'ollama' | 'openai';
  backend_api_key?: string | undefined;
};

export type AgentAskOptions = {
  signal?: AbortSignal;
  /** agent.ask, agent.tool_call, llmserver.chat, ... (see events.ts). */
  onEvent?: AgentEventSink;
  /** Each stderr line of a driver process (not the structured event lines, which go to onEvent). */
  onStderr?: (line: string) => void;
};

export type AgentTransportKind = 'in-process' | 'stdio' | 'http';
export type AgentSource = 'builtin' | 'bundled' | 'settings' | 'environment';

export type AgentDescriptor = {
  name: string;
  source: AgentSource;
  transport: AgentTransportKind;
  /** argv joined, or the URL; null for the in-process agent. */
  command: string | null;
};

export interface ResolvedAgent {
  readonly name: string;
  readonly transport: AgentTransportKind;
  ask(params: AgentAskParams, options?: AgentAskOptions): Promise<AgentResult>;
  info(options?: { signal?: AbortSignal }): Promise<DriverInfo>;
}

export interface AgentRegistry {
  /** Names, sorted. */
  listAgents(): string[];
  describeAgents(): AgentDescriptor[];
  hasAgent(name: string): boolean;
  /** Throws AgentError('unknown_agent') naming the available agents. */
  resolveAgent(name: string): ResolvedAgent;
  /** Driver entries that were ignored (bad name, bad command line), for logs and Settings. */
  readonly warnings: readonly string[];
}

export type AgentRegistryOptions = {
  /** argv prefix that re-launches this program, e.g. [process.execPath, '/abs/dist/main/cli.js']. */
  selfCommand: readonly string[];
  /** User drivers from settings: {name: commandLine}. */
  drivers?: Readonly<Record<string, string>>;
  /** Read for BENCHDESK_DRIVER_* and KUBECONFIG, and passed to driver processes (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Time limit of one driver call (default 300 s). */
  timeoutMs?: number;
  killGraceMs?: number;
  /** Built-in agent settings (LLM client factory, step limit). */
  builtin?: Omit<BuiltinAskOptions, 'signal' | 'onEvent'>;
  /** Run `builtin` in-process (default) or as `<selfCommand> driver builtin`. */
  builtinTransport?: 'in-process' | 'driver';
  /**
   * Run the bundled holmes/k8sgpt drivers as `<selfCommand> driver <name>` children (default), or
   * in this process (the desktop app, whose Electron binary cannot run as Node: runAsNode fuse off).
   */
  bundledTransport?: 'driver' | 'in-process';
  /** Working directory of driver processes (relative driver paths resolve against it). */
  cwd?: string;
};

/** An agent the registry knows; `call` is how a driver is reached (none for the in-process built-in agent). */
export type AgentEntry = AgentDescriptor & { call?: DriverTransport };

function driverTransport(name: string, commandLine: string, options: AgentRegistryOptions): { transport: DriverTransport; kind: 'stdio' | 'http' } {
  const label = `driver '${name}'`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS;
  if (/^https?:\/\//i.test(commandLine)) {
    return { transport: new HttpDriverTransport({ url: commandLine, label, timeoutMs }), kind: 'http' };
  }
  return {
    transport: new StdioDriverTransport({
      command: splitCommandLine(commandLine),
      label,
      // Never our secrets: the allow-list, plus what BENCHDESK_AGENT_ENV names.
      env: agentEnvironment(options.env ?? process.env, 'user'),
      cwd: options.cwd,
      timeoutMs,
      killGraceMs: options.killGraceMs,
    }),
    kind: 'stdio',
  };
}

function selfDriver(name: string, options: AgentRegistryOptions): DriverTransport {
  if (options.selfCommand.length === 0) throw new AgentError('invalid_driver', 'selfCommand is empty: cannot launch bundled drivers');
  const timeoutMs = options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS;
  return new StdioDriverTransport({
    command: [...options.selfCommand, 'driver', name],
    label: `driver '${name}'`,
    // Our drivers stop their CLI a little before we stop them, so they can still answer with a clear error.
    env: agentEnvironment(options.env ?? process.env, name === 'holmes' || name === 'k8sgpt' ? name : 'builtin', {
      [AGENT_TIMEOUT_ENV]: String(Math.max(1000, timeoutMs - CHILD_TIMEOUT_MARGIN_MS)),
    }),
    cwd: options.cwd,
    timeoutMs: options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS,
    killGraceMs: options.killGraceMs,
  });
}

export function createAgentRegistry(options: AgentRegistryOptions): AgentRegistry {
  const env = options.env ?? process.env;
  const warnings: string[] = [];
  const entries = new Map<string, AgentEntry>();

  entries.set('builtin', {
    name: 'builtin',
    source: 'builtin',
    transport: options.builtinTransport === 'driver' ? 'stdio' : 'in-process',
    command: options.builtinTransport === 'driver' ? [...options.selfCommand, 'driver', 'builtin'].join(' ') : null,
    call: options.builtinTransport === 'driver' ? selfDriver('builtin', options) : undefined,
  });
  for (const name of IN_PROCESS_DRIVER_NAMES) {
    if (options.bundledTransport === 'in-process') {
      const call = inProcessDriver(name, { env, timeoutMs: options.timeoutMs, killGraceMs: options.killGraceMs });
      entries.set(name, { name, source: 'bundled', transport: 'in-process', command: null, call });
      continue;
    }
    const call = selfDriver(name, options);
    entries.set(name, { name, source: 'bundled', transport: 'stdio', command: call.description, call });
  }

  const register = (rawName: string, commandLine: string | undefined, source: 'settings' | 'environment', origin: string): void => {
    const name = AgentNameSchema.safeParse(rawName);
    if (!name.success) {
      warnings.push(`${origin}: '${rawName}' is not a valid agent name (lower-case letters, digits, _ and -); ignored`);
      return;
    }
    if (name.data === 'builtin') {
      warnings.push(`${origin}: the built-in agent cannot be replaced; ignored`);
      return;
    }
    const line = DriverCommandLineSchema.safeParse(commandLine);
    if (!line.success) {
      warnings.push(`${origin}: empty or overlong command line; ignored`);
      return;
    }
    try {
      const { transport, kind } = driverTransport(name.data, line.data, options);
      entries.set(name.data, { name: name.data, source, transport: kind, command: transport.description, call: transport });
    } catch (err) {
      const reason = err instanceof CommandLineError || err instanceof AgentError ? err.message : errorMessage(err);
      warnings.push(`${origin}: ${reason}; ignored`);
    }
  };

  for (const [name, line] of Object.entries(options.drivers ?? {})) register(name, line, 'settings', `settings driver '${name}'`);
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith(ENV_DRIVER_PREFIX) || key.length === ENV_DRIVER_PREFIX.length) continue;
    register(key.slice(ENV_DRIVER_PREFIX.length).toLowerCase(), value, 'environment', key);
  }

  const available = (): string => [...entries.keys()].sort().join(', ');

  const resolveAgent = (name: string): ResolvedAgent => {
    const entry = entries.get(name);
    if (!entry) throw new AgentError('unknown_agent', `unknown agent '${name}'; available agents: ${available()}`);
    return resolvedAgent(entry, options, env);
  };

  return {
    warnings,
    listAgents: () => [...entries.keys()].sort(),
    describeAgents: () =>
      [...entries.values()].sort((a, b) => a.name.localeCompare(b.name)).map(({ name, source, transport, command }) => ({ name, source, transport, command })),
    hasAgent: (name) => entries.has(name),
    resolveAgent,
  };
}
