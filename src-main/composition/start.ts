import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stopAllTrees } from '../agents/process-group';
import { DEFAULT_KILL_GRACE_MS } from '../agents/process-runner';
import { buildApiServer } from '../api/server';
import { parseInput } from '../adapter/parse-input';
import { createInProcessClient, createOperationHandlers } from '../adapter';
import { openJobStore } from '../store/job-store';
import { isLoopbackHost, loadConfig, type Config } from '../app/config';
import { processLogDestination } from '../app/log-destination';
import { createPinoLogger, toLogger } from '../app/logger';
import { IDEMPOTENCY_RETENTION_MS } from '../app/service';
import { SettingsStore } from '../app/settings';
import { SpendCache } from '../app/spend';
import { VERSION } from '../app/version';
import { createTemplateSearch } from '../app/templates';
import { openAuth, openJobs, openMarketplace, openSweepsAndMachines, type LateParts } from './assemble';
import { containUncaughtErrors } from './contain-errors';
import type { Benchdesk, BenchdeskOptions } from './options';

export { VERSION };

export type { Benchdesk, BenchdeskOptions } from './options';

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
  const log = toLogger(options.logger === false ? createPinoLogger('silent') : createPinoLogger());

  const store = await openJobStore({ dataDir: config.dataDir, logger: log });
  try {
    const settings = new SettingsStore(config.dataDir);
    const { auth, apiToken } = await openAuth(config, settings, options, log);
    const late: LateParts = {};
    const market = await openMarketplace(config, settings, store, options, log, late);
    const { providers, leases } = market;
    const jobs = await openJobs({ config, settings, store, providers, leases, auth, version: VERSION }, options, log);
    const { engine, service, agents, snapshots, suites } = jobs;
    const { sweeps, instances } = openSweepsAndMachines({ config, settings, store, ...market, ...jobs }, options, log);
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
      settings: { settings, auth, config, env, setConcurrency: (limit) => engine.setConcurrency(limit), apiAddress: () => apiAddress(listening.app, config), marketplaceKey: market.marketplaceKey },
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
      // A snapshot export is written as the stored file is read, never built as one string.
      byteResponses: { exportSnapshot: (ctx, input) => snapshots.exportText(ctx.tenantId, parseInput('exportSnapshot', input).snapshot_id) },
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
      marketplaceKey: market.marketplaceKey,
      installId: market.installId,
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
        await suites.close();
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
