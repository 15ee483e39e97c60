import path from 'node:path';
import { MIN_TOKEN_CHARS, Authenticator, weakTokenTenants } from '../api/auth';
import { ConfigError, isLoopbackHost, type Config } from '../app/config';
import { createService } from '../app/service';
import type { SettingsStore } from '../app/settings';
import { createAppInstanceService, type InstanceService } from '../app/instances';
import { createSnapshotService } from '../app/snapshots';
import { createSuiteService } from '../app/suites';
import { JobEngine } from '../engine/engine';
import { rentedTemplateIssues } from '../engine/workflows/marketplace-instance';
import type { Logger } from '../engine/types';
import type { Leases } from '../lease/leases';
import { HeldKeys } from '../marketplace/held-keys';
import type { JobStore } from '../store/types';
import type { SweepEngine } from '../sweeps/sweep-engine';
import { createLeases } from './leases';
import type { BenchdeskOptions } from './options';
import { createMarketplaceKey, createProviders, type Providers } from './providers';
import { createSweeps } from './sweeps';
import { createAgents, createWorkflows } from './workflows';

/**
 * The pieces the composition root (start.ts) puts together, each a step of createBenchdesk: the
 * API's authentication, the marketplace and its leases, the job engine and its service, the
 * sweeps, the machines list.
 */

/** The desktop's own token (created on first start) and the authenticator; a non-loopback bind needs auth. */
export async function openAuth(config: Config, settings: SettingsStore, options: BenchdeskOptions, log: Logger): Promise<{ auth: Authenticator; apiToken: string | undefined }> {
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
  const weak = weakTokenTenants(config.apiTokens);
  if (weak.length > 0) {
    log.warn(`SERVICE_API_TOKENS has tokens shorter than ${MIN_TOKEN_CHARS} characters: a guessable token is not protected by the failed-login limit (a valid token always passes it); use random ones (openssl rand -hex 24)`, { tenants: weak });
  }
  if (!isLoopbackHost(config.host)) {
    if (auth.mode !== 'enabled') {
      throw new ConfigError(`BENCHDESK_HOST=${config.host} is not a loopback address: binding it requires authentication (set SERVICE_API_TOKENS)`);
    }
    log.warn('the API is bound to a non-loopback address; anyone who can reach it and holds a token can spend your marketplace credit', { host: config.host });
  }
  return { auth, apiToken };
}

/** Bound once the engine and the sweeps exist: the leases tell their owners what happened. */
export type LateParts = { engine?: JobEngine; sweeps?: SweepEngine };

/** The key holder, the providers, the install id and every rented machine's lease (the ledger loaded). */
export async function openMarketplace(config: Config, settings: SettingsStore, store: JobStore, options: BenchdeskOptions, log: Logger, late: LateParts) {
  // Tests replace some provider calls; the rest are the real ones (no I/O until called).
  const marketplaceKey = createMarketplaceKey(config, options.appMarketplaceKey, { log, clientOptions: options.marketplaceClient });
  const providers: Providers = { ...createProviders({ config, settings, log, marketplaceKey }), ...options.providers };
  // Created once per data dir: the labels of its machines tell them from another install's.
  const installId = settings.ensureInstallId();
  const heldKeys = new HeldKeys(path.join(config.dataDir, 'secrets'));
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
  return { marketplaceKey, providers, installId, heldKeys, leases };
}

/** The agents, snapshots and suites, the job engine with its workflows, and the service over it. */
export async function openJobs(parts: { config: Config; settings: SettingsStore; store: JobStore; providers: Providers; leases: Leases; auth: Authenticator; version: string }, options: BenchdeskOptions, log: Logger) {
  const { config, settings, store, providers, leases } = parts;
  const env = options.env ?? process.env;
  const now = options.now ? { now: options.now } : {};
  // One registry: the workflows ask its agents, the Launch form lists them.
  const agents = createAgents({ config, settings, log, env });
  const snapshots = await createSnapshotService({ dataDir: config.dataDir, log, ...now, ...(options.snapshotTuning ? { recordTuning: options.snapshotTuning } : {}) });
  // The shipped suite's snapshots are stored here on first start.
  const suites = await createSuiteService({ dataDir: config.dataDir, log, snapshots, ...now });
  const engine = new JobEngine({
    store,
    handlers: options.handlers ?? createWorkflows({ config, providers, settings, log, env, leases, agents, snapshots, suites, ...(options.workflowTuning ? { marketplace: options.workflowTuning } : {}) }),
    // BENCHDESK_CONCURRENCY wins; otherwise the Settings page's value (default 4).
    concurrency: env.BENCHDESK_CONCURRENCY?.trim() ? config.concurrency : settings.appSettings().concurrency,
    logger: log,
    ...now,
  });
  const engineNow = options.now;
  const service = createService({
    engine,
    store,
    version: parts.version,
    authMode: parts.auth.mode,
    tokenSources: () => parts.auth.tokenSources(),
    estimate: providers.estimate,
    catalog: providers.catalog,
    listLlmModels: providers.listLlmModels,
    resolveDefaultBackendUrl: (url) => settings.resolveBackendUrl(url),
    // Idempotency records are aged with the clock that stamped them (the engine's `now`).
    ...(engineNow ? { now: () => engineNow().getTime() } : options.authNow ? { now: options.authNow } : {}),
  });
  return { agents, snapshots, suites, engine, service };
}

/** The sweeps (their machines are leases) and the machines list with its orphan sweep. */
export function openSweepsAndMachines(
  parts: { config: Config; settings: SettingsStore; store: JobStore; providers: Providers; leases: Leases; installId: string; heldKeys: HeldKeys } & Awaited<ReturnType<typeof openJobs>>,
  options: BenchdeskOptions,
  log: Logger,
): { sweeps: SweepEngine; instances: InstanceService } {
  const { config, store, engine, providers, leases, suites } = parts;
  const tuning = options.workflowTuning ?? {};
  const sweeps = createSweeps({
    dataDir: config.dataDir,
    log,
    store,
    engine,
    bus: engine.bus,
    service: parts.service,
    marketplace: {
      leases,
      access: providers.marketplaceAccess,
      catalog: providers.catalogIndex,
      ready: { ...(tuning.waitTimeoutMs !== undefined ? { timeoutMs: tuning.waitTimeoutMs } : {}), ...(tuning.pollIntervalMs !== undefined ? { pollIntervalMs: tuning.pollIntervalMs } : {}) },
    },
    now: tuning.now,
    tuning: options.sweepTuning,
    // A suite sweep names a suite that exists; its scenarios' tags give accuracy per tag.
    // A vLLM sweep without a template hash needs the marketplace's template of that name.
    checkRequest: async (request) => [
      ...(request.suite_id !== undefined && !(await suites.find(request.suite_id)) ? [{ path: 'suite_id', message: `no suite '${request.suite_id}' (GET /v1/suites lists them)` }] : []),
      ...(await rentedTemplateIssues({ access: providers.marketplaceAccess }, { ...request, marketplace: true })),
    ],
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
    heldKeys: parts.heldKeys,
    installId: parts.installId,
    leases,
    store,
    engine,
    settings: parts.settings,
    log,
    env: options.env ?? process.env,
    tuning: options.instancesTuning,
  });
  return { sweeps, instances };
}
