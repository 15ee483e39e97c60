import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pkg from '../../package.json' with { type: 'json' };
import type { BenchdeskClient } from '../../shared';
import { stopAllTrees } from '../agents/process-group';
import { DEFAULT_KILL_GRACE_MS } from '../agents/process-runner';
import { Authenticator } from '../api/auth';
import type { HttpLimits } from '../api/http-limits';
import type { EventStreamLimits } from '../api/sse';
import { buildApiServer } from '../api/server';
import { createInProcessClient, createOperationHandlers, type OperationHandlers } from '../adapter';
import { JobEngine } from '../engine/engine';
import type { AnyJobHandler, Logger } from '../engine/types';
import { openJobStore } from '../store/job-store';
import type { JobStore } from '../store/types';
import { ConfigError, isLoopbackHost, loadConfig, type Config } from '../app/config';
import { processLogDestination } from '../app/log-destination';
import { createPinoLogger, toLogger } from '../app/logger';
import type { MarketplaceKeyHolder, PersistMarketplaceKey } from '../app/marketplace-key';
import { HeldKeys } from '../marketplace/held-keys';
import { containUncaughtErrors } from './contain-errors';
import { createMarketplaceKey, createProviders, type MarketplaceClientTuning, type Providers } from './providers';
import { IDEMPOTENCY_RETENTION_MS, createService } from '../app/service';
import type { BenchdeskService } from '../app/service-types';
import { SettingsStore } from '../app/settings';
import { SpendCache } from '../app/spend';
import { createAgents, createWorkflows } from './workflows';
import { createTemplateSearch } from '../app/templates';
import { createAppInstanceService, type InstanceService } from '../app/instances';
import { createSnapshotService, type SnapshotService } from '../app/snapshots';
import { createSuiteService, type SuiteService } from '../app/suites';
import { createSweeps, type SweepTuning } from './sweeps';
import { createLeases } from './leases';
import type { LeaseTuning } from '../lease/lease-deps';
import type { Leases } from '../lease/leases';
import type { SweepEngine } from '../sweeps/sweep-engine';

export const VERSION: string = pkg.version;

export type BenchdeskOptions = {
  env?: NodeJS.ProcessEnv;
  /** Overrides of the environment's settings. */
  dataDir?: string;
  host?: string;
  port?: number;
  /** The desktop app: always configures auth with its own token (design §3). */
  electron?: boolean;
  /** The app's own token without Electron (`npm start` falling back to the browser UI): as `electron`. */
  appToken?: boolean;
  /**
   * The desktop app's marketplace key: `key` = the stored one (decrypted; used before VAST_API_KEY),
   * `persist` = saves a new one (safeStorage). Settings changes apply without a restart.
   */
  appMarketplaceKey?: { key?: string | undefined; persist?: PersistMarketplaceKey };
  /** false = silent (tests); default: pino to stdout. */
  logger?: FastifyServerOptions['logger'] | false;
  /** Replace the workflows (tests register handlers that succeed, fail, hang…). */
  handlers?: readonly AnyJobHandler[];
  /** Faster marketplace polling against fakes (tests); `now` is the ledger's clock. */
  workflowTuning?: { waitTimeoutMs?: number; pollIntervalMs?: number; releaseRetryDelayMs?: number; costUpdateIntervalMs?: number; now?: () => number };
  /** The leases' retries, hunts and boot window (tests shorten them). */
  leaseTuning?: LeaseTuning;
  /** Orphan sweep cadence (tests shorten it; default BENCHDESK_ORPHAN_SWEEP_INTERVAL_S or 5 min). */
  instancesTuning?: { sweepIntervalMs?: number; releaseRetryDelayMs?: number };
  /** Marketplace client settings (timeouts, retries, the search limit); tests shorten them. */
  marketplaceClient?: MarketplaceClientTuning;
  /** Replace provider calls (tests). */
  providers?: Partial<Providers>;
  now?: () => Date;
  authNow?: () => number;
  uiDir?: string;
  sseHeartbeatMs?: number;
  /** Request/header timeouts and the per-IP connection cap of the HTTP API (tests shorten them). */
  httpLimits?: Partial<HttpLimits>;
  /** What an event stream may hold for a client that does not read (tests use small bounds). */
  streamLimits?: Partial<EventStreamLimits>;
  /** The snapshot recording's time bound and request timeout (tests shorten them). */
  snapshotTuning?: { deadlineMs?: number; requestTimeoutMs?: number };
  /** The sweep engine's cost cadence and clock, or replaced jobs/machines (tests). */
  sweepTuning?: SweepTuning;
};

export type Benchdesk = {
  config: Config;
  app: FastifyInstance;
  engine: JobEngine;
  store: JobStore;
  service: BenchdeskService;
  /** Rented marketplace machines: list, release, orphan sweep. */
  instances: InstanceService;
  /** Every rented machine's lease, and the ledger of what they cost. */
  leases: Leases;
  /** Recorded clusters: record, store, serve to jobs; the suites register who uses which here. */
  snapshots: SnapshotService;
  suites: SuiteService;
  /** Sweeps: models × GPUs, one rented machine per GPU. */
  sweeps: SweepEngine;
  /** Every operation, for every transport (HTTP routes, IPC, in-process clients). */
  handlers: OperationHandlers;
  /** The typed client over `handlers`, in this process, as `tenantId` (default: the app's tenant). */
  client(tenantId?: string): BenchdeskClient;
  settings: SettingsStore;
  /** The marketplace key in use; the desktop app sets or clears its own here, without a restart. */
  marketplaceKey: MarketplaceKeyHolder;
  /** This data dir's install id (in the labels of the machines it rents). */
  installId: string;
  auth: Authenticator;
  /** The tenant the desktop app acts as over IPC. */
  tenantId: string;
  /** The app's API token (plaintext, for Settings → show/copy); undefined headless unless `appToken`. */
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
    if (options.electron || options.appToken) {
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
    const marketplaceKey = createMarketplaceKey(config, options.appMarketplaceKey, { log, clientOptions: options.marketplaceClient });
    const providers: Providers = { ...createProviders({ config, settings, log, marketplaceKey }), ...options.providers };
    // Created once per data dir: the labels of its machines tell them from another install's.
    const installId = settings.ensureInstallId();
    const heldKeys = new HeldKeys(path.join(config.dataDir, 'secrets'));
    // Bound once the engine and the sweeps exist: the leases tell their owners what happened.
    const late: { engine?: JobEngine; sweeps?: SweepEngine } = {};
    const tuning = options.workflowTuning ?? {};
    const leases = createLeases({
      dataDir: config.dataDir,
      log,
      access: providers.marketplaceAccess,
      heldKeys,
      installId,
      store,
      emitJob: () => (late.engine ? (jobId, input) => late.engine?.emit(jobId, input) ?? Promise.resolve() : null),
      publishSweep: () => (late.sweeps ? (tenantId, sweepId, e) => late.sweeps?.records.publish({ tenant_id: tenantId, sweep_id: sweepId }, { ...e, message: e.message ?? e.event }) : null),
      keptLimitDefault: () => settings.appSettings().default_max_cost_usd,
      // The one clock of costs (tests move it): the jobs' and the sweeps' machines are the ledger's.
      now: tuning.now ?? options.sweepTuning?.now,
      tuning: {
        ...(tuning.waitTimeoutMs !== undefined ? { waitTimeoutMs: tuning.waitTimeoutMs } : {}),
        ...(tuning.pollIntervalMs !== undefined ? { pollIntervalMs: tuning.pollIntervalMs } : {}),
        ...(tuning.releaseRetryDelayMs !== undefined ? { releaseRetryDelayMs: tuning.releaseRetryDelayMs } : {}),
        ...options.leaseTuning,
      },
    });
    await leases.load();
    // One registry: the workflows ask its agents, the Launch form lists them.
    const agents = createAgents({ config, settings, log, env });
    const snapshots = await createSnapshotService({ dataDir: config.dataDir, log, ...(options.now ? { now: options.now } : {}), ...(options.snapshotTuning ? { recordTuning: options.snapshotTuning } : {}) });
    // The shipped suite's snapshots are stored here on first start.
    const suites = await createSuiteService({ dataDir: config.dataDir, log, snapshots, ...(options.now ? { now: options.now } : {}) });
    const engine = new JobEngine({
      store,
      handlers:
        options.handlers ??
        createWorkflows({ config, providers, settings, log, env, leases, agents, snapshots, suites, ...(options.workflowTuning ? { marketplace: options.workflowTuning } : {}) }),
      // BENCHDESK_CONCURRENCY wins; otherwise the Settings page's value (default 4).
      concurrency: env.BENCHDESK_CONCURRENCY?.trim() ? config.concurrency : settings.appSettings().concurrency,
      logger: log,
      ...(options.now ? { now: options.now } : {}),
    });
    const engineNow = options.now;
    const service = createService({
      engine,
      store,
      version: VERSION,
      authMode: auth.mode,
      tokenSources: () => auth.tokenSources(),
      estimate: providers.estimate,
      catalog: providers.catalog,
      listLlmModels: providers.listLlmModels,
      resolveDefaultBackendUrl: (url) => settings.resolveBackendUrl(url),
      // Idempotency records are aged with the clock that stamped them (the engine's `now`).
      ...(engineNow ? { now: () => engineNow().getTime() } : options.authNow ? { now: options.authNow } : {}),
    });
    const sweeps = createSweeps({
      dataDir: config.dataDir,
      log,
      store,
      engine,
      bus: engine.bus,
      service,
      marketplace: {
        leases,
        access: providers.marketplaceAccess,
        catalog: providers.catalogIndex,
        ready: { ...(tuning.waitTimeoutMs !== undefined ? { timeoutMs: tuning.waitTimeoutMs } : {}), ...(tuning.pollIntervalMs !== undefined ? { pollIntervalMs: tuning.pollIntervalMs } : {}) },
      },
      now: tuning.now,
      tuning: options.sweepTuning,
      // A suite sweep names a suite that exists; its scenarios' tags give accuracy per tag.
      checkRequest: async (request) =>
        request.suite_id !== undefined && !(await suites.find(request.suite_id)) ? [{ path: 'suite_id', message: `no suite '${request.suite_id}' (GET /v1/suites lists them)` }] : [],
      tagsOf: async (suiteId) => {
        const suite = await suites.find(suiteId);
        if (!suite) return undefined;
        const tags = new Map(suite.scenarios.map((s) => [s.scenario_id, s.tags]));
        return (scenarioId) => tags.get(scenarioId);
      },
    });
    // Rented machines as a resource: list, release and the orphan sweep (started by startBenchdesk).
    const instances = createAppInstanceService({
      sweepMachine: (machineId) => sweeps.machineOwner(machineId),
      access: providers.marketplaceAccess,
      heldKeys,
      installId,
      leases,
      store,
      engine,
      settings,
      log,
      env,
      tuning: options.instancesTuning,
    });
    late.engine = engine;
    late.sweeps = sweeps;
    const spend = new SpendCache({ store, ledger: leases.ledger, subscribe: (tenantId, listener) => service.subscribe(tenantId, null, listener), ...(options.now ? { now: options.now } : {}) });
    // Filled once the server is built: the settings operations report the address it listens on.
    const listening: { app?: FastifyInstance } = {};
    const handlers = createOperationHandlers({
      service,
      store,
      instances,
      snapshots,
      suites,
      sweeps,
      overview: { spend },
      choices: { agents, templates: createTemplateSearch({ marketplace: providers.marketplace }) },
      settings: {
        settings,
        auth,
        config,
        env,
        setConcurrency: (limit) => engine.setConcurrency(limit),
        apiAddress: () => apiAddress(listening.app, config),
        marketplaceKey,
      },
    });
    const app = await buildApiServer({
      handlers,
      auth,
      version: VERSION,
      logger: options.logger === false ? false : typeof options.logger === 'object' ? options.logger : { level: process.env.BENCHDESK_LOG_LEVEL ?? 'info', stream: processLogDestination() },
      uiDir: options.uiDir ?? (config.serveUi ? path.resolve(import.meta.dirname, '..', 'renderer') : undefined),
      extraHosts: isLoopbackHost(config.host) ? [] : [config.host],
      ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
      ...(options.httpLimits ? { httpLimits: options.httpLimits } : {}),
      ...(options.streamLimits ? { streamLimits: options.streamLimits } : {}),
      agentNames: () => agents.listAgents(),
      cachedJob: (tenantId, jobId) => {
        const job = store.peekJob(jobId);
        // Another tenant's job is answered by the ordinary route (a 404, as for a missing one).
        return job?.tenant_id === tenantId ? job : undefined;
      },
    });
    listening.app = app;
    await store.pruneIdempotency(IDEMPOTENCY_RETENTION_MS);

    let closed = false;
    return {
      config,
      app,
      engine,
      store,
      service,
      instances,
      leases,
      snapshots,
      suites,
      sweeps,
      handlers,
      client: (tenantId = 'default') => createInProcessClient(handlers, tenantId, (message, err) => log.error(message, { err: String(err) })),
      settings,
      marketplaceKey,
      installId,
      auth,
      tenantId: 'default',
      apiToken,
      log,
      async close() {
        if (closed) return;
        closed = true;
        spend.close();
        await instances.stop();
        await app.close();
        // Before the jobs: the sweeps cancel their jobs, release their machines and stay resumable.
        await sweeps.shutdown();
        await engine.shutdown(config.shutdownGraceMs);
        // After every owner let go: retries and hunts stop (they resume from the ledger at the next start).
        await leases.close();
        // The engine's cancel stops each job's agent processes; anything still running is stopped here.
        await stopAllTrees(DEFAULT_KILL_GRACE_MS);
        await snapshots.close();
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
  // From here background work runs (recovery, the sweep, cost meters): nothing it throws may end the process.
  const release = containUncaughtErrors(bd.log);
  const close = bd.close;
  bd.close = async () => {
    try {
      await close();
    } finally {
      release();
    }
  };
  try {
    await bd.engine.recover();
    // After the jobs' recovery (interrupted jobs failed): release what interrupted sweeps held, resume them.
    await bd.sweeps.recover();
    // Whatever lease is still open (no owner settled it): looked for by label, released, or watched if kept.
    await bd.leases.recover();
    // After recovery (which releases what interrupted jobs held): whatever is still up unaccounted for is an orphan.
    bd.instances.start();
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

/** The address scripts should use: the bound one once listening, else the configured one. */
function apiAddress(app: FastifyInstance | undefined, config: Config): { url: string; host: string; port: number } {
  const bound = app?.server.address();
  const port = bound && typeof bound === 'object' ? bound.port : config.port;
  const host = config.host;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, host, port };
}
