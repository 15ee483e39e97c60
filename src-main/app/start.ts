import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pkg from '../../package.json' with { type: 'json' };
import { Authenticator } from '../api/auth';
import { buildApiServer } from '../api/server';
import { JobEngine } from '../engine/engine';
import type { AnyJobHandler, Logger } from '../engine/types';
import { openJobStore } from '../store/job-store';
import type { JobStore } from '../store/types';
import { ConfigError, isLoopbackHost, loadConfig, type Config } from './config';
import { createPinoLogger, toLogger } from './logger';
import { createProviders, type Providers } from './providers';
import { IDEMPOTENCY_RETENTION_MS, createService } from './service';
import type { BenchdeskService } from './service-types';
import { SettingsStore } from './settings';
import { createWorkflows } from './workflows';

export const VERSION: string = pkg.version;

export type BenchdeskOptions = {
  env?: NodeJS.ProcessEnv;
  /** Overrides of the environment's settings. */
  dataDir?: string;
  host?: string;
  port?: number;
  /** The desktop app: always configures auth with its own token (design §3). */
  electron?: boolean;
  /** false = silent (tests); default: pino to stdout. */
  logger?: FastifyServerOptions['logger'] | false;
  /** Replace the workflows (tests register handlers that succeed, fail, hang…). */
  handlers?: readonly AnyJobHandler[];
  /** Faster marketplace polling against fakes (tests). */
  workflowTuning?: { waitTimeoutMs?: number; pollIntervalMs?: number; releaseRetryDelayMs?: number };
  /** Replace provider calls (tests). */
  providers?: Partial<Providers>;
  now?: () => Date;
  authNow?: () => number;
  uiDir?: string;
  sseHeartbeatMs?: number;
};

export type Benchdesk = {
  config: Config;
  app: FastifyInstance;
  engine: JobEngine;
  store: JobStore;
  service: BenchdeskService;
  settings: SettingsStore;
  auth: Authenticator;
  /** The tenant the desktop app acts as over IPC. */
  tenantId: string;
  /** The desktop app's API token (plaintext, for Settings → show/copy); undefined headless. */
  apiToken: string | undefined;
  log: Logger;
  close(): Promise<void>;
};

/**
 * The composition root: opens the data dir, builds store → engine → service → HTTP API. The
 * headless server, the Electron main process, the CLI's in-process mode and the tests all start
 * the product through here, so they run exactly the same code.
 */
export async function createBenchdesk(options: BenchdeskOptions = {}): Promise<Benchdesk> {
  const env = options.env ?? process.env;
  const config = loadConfig(env);
  if (options.dataDir) config.dataDir = path.resolve(options.dataDir);
  if (options.host) config.host = options.host;
  if (options.port !== undefined) config.port = options.port;

  const pinoLogger = options.logger === false ? createPinoLogger('silent') : createPinoLogger();
  const log = toLogger(pinoLogger);

  const store = await openJobStore({ dataDir: config.dataDir, logger: log });
  try {
    const settings = new SettingsStore(config.dataDir);
    let apiToken: string | undefined;
    if (options.electron) {
      const ensured = await settings.ensureApiToken();
      apiToken = ensured.token;
      if (ensured.created) log.info('created the desktop API token', { file: path.join(config.dataDir, 'api-token') });
    }
    const storedHash = settings.read().api_token_sha256;
    const auth = new Authenticator({
      apiTokens: config.apiTokens,
      hashedTokens: storedHash ? [{ tenantId: 'default', sha256Hex: storedHash }] : [],
      disabled: config.authDisabled,
      ...(options.authNow ? { now: options.authNow } : {}),
    });
    if (!isLoopbackHost(config.host)) {
      if (auth.mode !== 'enabled') {
        throw new ConfigError(`BENCHDESK_HOST=${config.host} is not a loopback address: binding it requires authentication (set SERVICE_API_TOKENS)`);
      }
      log.warn('the API is bound to a non-loopback address; anyone who can reach it and holds a token can spend your marketplace credit', { host: config.host });
    }

    // Tests replace some provider calls; the rest are the real ones (no I/O until called).
    const providers: Providers = { ...createProviders({ config, settings, log }), ...options.providers };
    const engine = new JobEngine({
      store,
      handlers: options.handlers ?? createWorkflows({ config, providers, settings, log, env, ...(options.workflowTuning ? { marketplace: options.workflowTuning } : {}) }),
      concurrency: config.concurrency,
      logger: log,
      ...(options.now ? { now: options.now } : {}),
    });
    const engineNow = options.now;
    const service = createService({
      engine,
      store,
      version: VERSION,
      authMode: auth.mode,
      estimate: providers.estimate,
      catalog: providers.catalog,
      listLlmModels: providers.listLlmModels,
      // Idempotency records are aged with the clock that stamped them (the engine's `now`).
      ...(engineNow ? { now: () => engineNow().getTime() } : options.authNow ? { now: options.authNow } : {}),
    });
    const app = await buildApiServer({
      service,
      auth,
      version: VERSION,
      logger: options.logger === false ? false : typeof options.logger === 'object' ? options.logger : { level: process.env.BENCHDESK_LOG_LEVEL ?? 'info' },
      uiDir: options.uiDir ?? (config.serveUi ? path.resolve(import.meta.dirname, '..', 'renderer') : undefined),
      extraHosts: isLoopbackHost(config.host) ? [] : [config.host],
      ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
    });
    await store.pruneIdempotency(IDEMPOTENCY_RETENTION_MS);

    let closed = false;
    return {
      config,
      app,
      engine,
      store,
      service,
      settings,
      auth,
      tenantId: 'default',
      apiToken,
      log,
      async close() {
        if (closed) return;
        closed = true;
        await app.close();
        await engine.shutdown(config.shutdownGraceMs);
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** create + recover interrupted/queued jobs + listen. */
export async function startBenchdesk(options: BenchdeskOptions = {}): Promise<Benchdesk & { apiUrl: string }> {
  const bd = await createBenchdesk(options);
  try {
    await bd.engine.recover();
    const address = await bd.app.listen({ host: bd.config.host, port: bd.config.port });
    if (bd.auth.mode === 'unconfigured') {
      bd.log.warn('API authentication is not configured: only /healthz answers. Set SERVICE_API_TOKENS="tenant:token" or SERVICE_API_AUTH_DISABLED=1');
    }
    return { ...bd, apiUrl: address };
  } catch (err) {
    await bd.close();
    throw err;
  }
}
