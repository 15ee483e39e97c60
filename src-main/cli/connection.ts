import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchdeskClient } from '../../shared';
import { createHttpClient, isBenchdeskApiError } from '../../shared/client';
import { ConfigError, defaultDataDir } from '../app/config';
import type { Benchdesk } from '../composition/start';
import { DataDirLockedError } from '../store/types';
import { CliError } from './exit-codes';
import { err, note } from './output';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';
/** How long the API probe waits: a local server answers /healthz in milliseconds. */
const PROBE_TIMEOUT_MS = 2_000;

export type ConnectionOptions = {
  apiUrl?: string | undefined;
  token?: string | undefined;
  tenant?: string | undefined;
  local?: boolean | undefined;
};

/**
 * `run` commands execute jobs: in-process that means recovering the data dir first (a crashed
 * run's rented machines are released, queued jobs resume) and finishing what runs before exit.
 * `read` commands only look, and must not start anyone's queued jobs.
 */
export type Purpose = 'run' | 'read';

export type Connection = {
  client: BenchdeskClient;
  mode: 'api' | 'local';
  /** The in-process product (local mode). */
  local: Benchdesk | null;
  apiUrl: string;
  dataDir: string;
  close(): Promise<void>;
};

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.BENCHDESK_DATA_DIR?.trim() || defaultDataDir(env));
}

/** --token, then BENCHDESK_TOKEN, then the desktop app's `api-token` file in the data dir. */
async function resolveToken(options: ConnectionOptions, dataDir: string, env: NodeJS.ProcessEnv): Promise<{ token: string | undefined; source: string }> {
  if (options.token) return { token: options.token, source: '--token' };
  const fromEnv = env.BENCHDESK_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'BENCHDESK_TOKEN' };
  const file = path.join(dataDir, 'api-token');
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return { token, source: file };
  } catch {
    // No token file: the server may run with auth disabled.
  }
  return { token: undefined, source: 'none' };
}

type Probe = { answered: true; auth: 'enabled' | 'disabled' | 'unconfigured' | undefined } | { answered: false; why: string };

async function probe(apiUrl: string): Promise<Probe> {
  const client = createHttpClient({ baseUrl: apiUrl });
  try {
    const health = await client.getHealth({}, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { answered: true, auth: health.auth };
  } catch (e) {
    if (isBenchdeskApiError(e)) return { answered: false, why: e.message };
    return { answered: false, why: e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${PROBE_TIMEOUT_MS} ms` : String(e) };
  }
}

async function openLocal(dataDir: string, purpose: Purpose, tenant: string, lockedHint: (e: DataDirLockedError) => string): Promise<Connection> {
  let bd: Benchdesk;
  try {
    // logger false: the product's own log lines would mix into stdout, which --json owns.
    // Loaded on use: a command that talks to a running app's API needs none of the engine's modules.
    const { createBenchdesk } = await import('../composition/start');
    bd = await createBenchdesk({ dataDir, logger: false });
  } catch (e) {
    if (e instanceof DataDirLockedError) throw new CliError(lockedHint(e));
    if (e instanceof ConfigError) throw new CliError(`configuration error: ${e.message}`);
    throw e;
  }
  let resumed = 0;
  if (purpose === 'run') {
    const recovered = await bd.engine.recover();
    resumed = recovered.requeued;
    if (recovered.interrupted > 0) {
      note(err.yellow(`recovered ${recovered.interrupted} job(s) a stopped benchdesk left running: marked failed (interrupted), rented machines released`));
    }
    if (recovered.requeued > 0) note(err.yellow(`resuming ${recovered.requeued} queued job(s) from the data dir in this process`));
    // A sweep a stopped benchdesk left running: its machine is released here; the sweep itself resumes with the next server start.
    const sweeps = await bd.sweeps.recover({ resume: false });
    if (sweeps.released > 0) note(err.yellow(`released ${sweeps.released} machine(s) a stopped benchdesk's sweep held; the sweep resumes when the app or the server starts`));
  }
  return {
    client: bd.client(tenant),
    mode: 'local',
    local: bd,
    apiUrl: '',
    dataDir,
    async close() {
      // Jobs resumed from the data dir run here too: let them finish rather than interrupt them.
      if (purpose === 'run') {
        if (resumed > 0 && bd.engine.runningCount + bd.engine.queuedCount > 0) {
          note(`waiting for the job(s) resumed from the data dir to finish (Ctrl-C quits; the next start on this data dir recovers them)`);
        }
        await bd.engine.idle();
      }
      await bd.close();
    },
  };
}

/**
 * Where the command runs (design §7): the running app's API, or in this process on the same data
 * dir. The data-dir lock decides — never two writers. The mode goes to stderr, never stdout.
 */
export async function connect(options: ConnectionOptions, purpose: Purpose, env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const apiUrl = (options.apiUrl ?? env.BENCHDESK_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const dataDir = resolveDataDir(env);
  const tenant = options.tenant ?? 'default';

  if (options.local) {
    const conn = await openLocal(dataDir, purpose, tenant, (e) =>
      `--local: the data dir ${dataDir} is in use by another benchdesk process (pid ${e.holderPid}: the desktop app or \`benchdesk serve\`). ` +
      `Only one process may write it: drop --local to use that process's API (--api-url, default ${DEFAULT_API_URL}).`,
    );
    note(err.dim(`benchdesk: running in-process (--local), data dir ${dataDir}`));
    return conn;
  }

  const probed = await probe(apiUrl);
  if (probed.answered) {
    if (probed.auth === 'unconfigured') {
      throw new CliError(
        `the benchdesk API at ${apiUrl} has no authentication configured, so it answers only /healthz. ` +
          'Restart it with SERVICE_API_TOKENS="default:<token>" (and pass that token with --token or BENCHDESK_TOKEN), or with SERVICE_API_AUTH_DISABLED=1.',
      );
    }
    const { token, source } = await resolveToken(options, dataDir, env);
    if (probed.auth === 'enabled' && !token) {
      throw new CliError(`the benchdesk API at ${apiUrl} needs a token: pass --token, set BENCHDESK_TOKEN, or put it in ${path.join(dataDir, 'api-token')}`);
    }
    note(err.dim(`benchdesk: using the app's API at ${apiUrl} (tenant ${tenant}${token ? `, token from ${source}` : ''})`));
    return {
      client: createHttpClient({ baseUrl: apiUrl, token: token ?? null, tenant: options.tenant }),
      mode: 'api',
      local: null,
      apiUrl,
      dataDir,
      close: () => Promise.resolve(),
    };
  }

  const conn = await openLocal(dataDir, purpose, tenant, (e) =>
    `the benchdesk app (pid ${e.holderPid}) holds the data dir ${dataDir}, but its API at ${apiUrl} does not answer (${probed.why}). ` +
    'If it listens on another address, pass --api-url; otherwise quit it (or wait until it has started) and try again.',
  );
  note(err.dim(`benchdesk: no API answers at ${apiUrl}; running in-process, data dir ${dataDir}`));
  return conn;
}
