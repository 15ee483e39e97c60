import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogEntry, JobRecord, RentedOffer, ValidationIssue } from '../../../shared';
import type { KeyedClient, MarketplaceAccess } from '../../marketplace/access';
import { MarketplaceError } from '../../marketplace/errors';
import type { MarketplaceEvent } from '../../marketplace/events';
import type { HeldKeys } from '../../marketplace/held-keys';
import { findLabelledInstances, labelsOfJob, provisionLlmServer, releaseInstance, type ReleaseResult, type RentRequest } from '../../marketplace/provisioning';
import { resolveCatalogModel, type Catalog } from '../../marketplace/catalog';
import type { VastApi } from '../../marketplace/vast-client';
import type { JobContext, RecoveryContext } from '../types';
import { LlmServerHttpError, LlmServerUnreachableError } from '../../llm/errors';
import { backoffDelay, sleep } from '../../marketplace/sleep';
import { llmClient, type BackendTarget } from './backend';
import { CostMeter } from './cost-meter';

function instanceTokenFile(dataDir: string, instanceId: number): string {
  return path.join(dataDir, 'secrets', `instance-${instanceId}.token`);
}

export type MarketplaceDeps = {
  /** The key in use, and a client for any other key (the one a job rented with). */
  access: MarketplaceAccess;
  /** The key each job rented with, sealed in the data dir until its machine is confirmed gone. */
  heldKeys: HeldKeys;
  /** This data dir's install id: labels are `benchdesk:<install_id>:<job_id>`. */
  installId: string;
  catalog(): Catalog;
  dataDir: string;
  /** Bound on provisioning (rent → running); default 10 min. */
  waitTimeoutMs?: number;
  /** Poll cadence while waiting for `running` (tests make it fast). */
  pollIntervalMs?: number;
  /** Pause between destroy/verify rounds. */
  releaseRetryDelayMs?: number;
  /** Cadence of `cost.update` while a job holds a machine (default 30 s). */
  costUpdateIntervalMs?: number;
  /** The clock the running cost is measured by (ms since the epoch; default Date.now). */
  now?: () => number;
  /** The `max_cost_usd_default` setting: the spend limit of a request that sets none (null: off). */
  maxCostDefault?: () => number | null;
  /** Told when a background step fails (the cost meter's timer), so nothing escapes to the process. */
  logError?: (message: string, fields: Record<string, unknown>) => void;
};

/** The request fields that price and limit a rented machine (benchmark and llm-instance). */
export type SpendRequest = { max_cost_usd?: number | undefined; estimated_duration_seconds?: number | undefined };

/** The job's spend limit: its own, else the settings default, else none. */
export function spendLimit(deps: MarketplaceDeps, request: SpendRequest): number | null {
  return request.max_cost_usd ?? deps.maxCostDefault?.() ?? null;
}

/** Submit-time checks for `marketplace: true`: a key is configured and the model is in the catalog. */
export function marketplaceIssues(deps: MarketplaceDeps, request: { marketplace: boolean; model?: string | undefined }): ValidationIssue[] {
  if (!request.marketplace) return [];
  const issues: ValidationIssue[] = [];
  if (!deps.access.current()) issues.push({ path: 'marketplace', message: 'marketplace is true but no marketplace key is configured (set VAST_API_KEY)' });
  if (request.model && !resolveCatalogModel(request.model, deps.catalog())) {
    issues.push({
      path: 'model',
      message: `model '${request.model}' is not in the marketplace catalog, so its GPU memory need is unknown; add it to the catalog in settings (GET /v1/catalog/marketplace-models lists it)`,
    });
  }
  return issues;
}

export type ProvisionedInstance = {
  instanceId: number;
  target: BackendTarget;
  model: CatalogEntry;
  offer: RentedOffer;
  dphTotal: number;
  rentedAt: string;
  /** Where the proxy token is kept (0600) so the user can reach the instance's Ollama. */
  tokenFile: string | null;
  /** Running cost and spend limit while the job holds the machine; the workflow stops it when it lets go. */
  meter: CostMeter;
  /** The key the machine was rented with, and its client: the job releases with it, whatever the key in use is by then. */
  keyed: KeyedClient;
  /** The host's download price ($/GB); null when it does not say. */
  inetDownCost: number | null;
  /** The model's download once it is on the machine (pullOnInstance): its size, cost and where the size came from. */
  download: { gb: number; usd: number | null; source: 'pull' | 'installed' | 'catalog' } | null;
};

/**
 * Rents the cheapest fitting offer and waits until Ollama is reachable. The instance id is
 * recorded in the job's resources as soon as it exists, so a crash can release it. A failed or
 * cancelled wait releases the instance before the error propagates (provisionLlmServer does).
 */
export async function provisionInstance(
  ctx: JobContext,
  deps: MarketplaceDeps,
  request: RentRequest & SpendRequest & { model: string },
  /** Release after a crash (benchmark: its marketplace_stop_instance; llm-instance: yes until it succeeded). */
  releaseIfInterrupted: boolean,
  /** What the machine must hold when it is not one catalog model (a sweep's machine holds several). */
  sizing?: CatalogEntry,
): Promise<ProvisionedInstance> {
  const keyed = deps.access.current();
  if (!keyed) throw new Error('no marketplace key is configured (set VAST_API_KEY)');
  const { client } = keyed;
  const model = sizing ?? resolveCatalogModel(request.model, deps.catalog());
  if (!model) throw new Error(`model '${request.model}' is not in the marketplace catalog`);
  await ctx.setProgress('provision', `renting a machine for ${model.name}`);
  // The job keeps this key until its machine is confirmed gone (in memory, and sealed in the data dir
  // for crash recovery): a key changed in Settings meanwhile must not leave the machine unreleasable.
  await deps.heldKeys.hold(ctx.job.job_id, keyed.key);
  const emitEvent = (e: MarketplaceEvent) => {
    void ctx.emit(e).catch(() => undefined);
  };
  const maxCostUsd = spendLimit(deps, request);
  let meter: CostMeter | null = null;
  const { rented, running } = await provisionLlmServer({
    client,
    request,
    model,
    ollamaModel: request.model,
    jobId: ctx.job.job_id,
    installId: deps.installId,
    signal: ctx.signal,
    onEvent: emitEvent,
    budget: { maxCostUsd, durationSeconds: request.estimated_duration_seconds ?? 3600 },
    onRented: async (r) => {
      await ctx.setResources({
        marketplace_instance_id: r.instanceId,
        marketplace_instance_released: false,
        marketplace_stop_instance: releaseIfInterrupted,
        dph_total: r.dphTotal,
        rented_at: r.rentedAt,
      });
      // Billing runs from here: the meter reports it (and enforces the limit) during the wait too.
      meter = new CostMeter(ctx, {
        instanceId: r.instanceId,
        dphTotal: r.dphTotal,
        rentedAt: r.rentedAt,
        maxCostUsd,
        ...(deps.costUpdateIntervalMs !== undefined ? { intervalMs: deps.costUpdateIntervalMs } : {}),
        ...(deps.now ? { now: deps.now } : {}),
        ...(deps.logError ? { logError: deps.logError } : {}),
      });
      meter.start();
    },
    wait: {
      ...(deps.waitTimeoutMs !== undefined ? { timeoutMs: deps.waitTimeoutMs } : {}),
      ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs, maxPollIntervalMs: deps.pollIntervalMs * 4 } : {}),
    },
  }).catch(async (err: unknown) => {
    (meter as CostMeter | null)?.stop();
    // provisionLlmServer released the instance if it had rented one; record that.
    const release = (err as { release?: ReleaseResult }).release;
    if (release) {
      await ctx.setResources({ marketplace_instance_released: release.released, marketplace_release_error: release.verified ? null : release.message });
      if (release.verified) await deps.heldKeys.drop(ctx.job.job_id).catch(() => undefined);
    } else if (!mayHaveRented(err)) {
      // Nothing was rented: the key is not needed. (A rent whose answer was lost keeps it for the sweep.)
      await deps.heldKeys.drop(ctx.job.job_id).catch(() => undefined);
    }
    throw err;
  });
  const target: BackendTarget = { backendUrl: running.backendUrl, headers: running.headers };
  let tokenFile: string | null = null;
  try {
    if (rented.access.authRequired) {
      // The proxy token is a secret: it never goes into the job record, only into a 0600 file.
      const dir = path.join(deps.dataDir, 'secrets');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      tokenFile = instanceTokenFile(deps.dataDir, rented.instanceId);
      await writeFile(tokenFile, `${rented.authToken}\n`, { mode: 0o600 });
    }
    await waitForLlmServer(ctx, deps, target);
  } catch (err) {
    // The caller never got the instance: release it here, or it would bill on.
    (meter as CostMeter | null)?.stop();
    await ctx.emit({ event: 'job.cleanup', status: 'info', message: `releasing instance ${rented.instanceId} because its llmserver is not usable` });
    await releaseJobInstance(ctx, deps, rented.instanceId, keyed);
    throw err;
  }
  const started = meter as CostMeter | null;
  if (!started) throw new Error(`instance ${rented.instanceId} was rented but its cost meter never started`);
  return {
    meter: started,
    instanceId: rented.instanceId,
    target,
    model,
    offer: rented.offer,
    dphTotal: rented.dphTotal,
    rentedAt: rented.rentedAt,
    tokenFile,
    keyed,
    inetDownCost: rented.inetDownCost,
    download: null,
  };
}

/** A rent whose outcome is unknown (a timeout, a lost or unreadable answer) may have created a machine. */
function mayHaveRented(err: unknown): boolean {
  return err instanceof MarketplaceError && ['timeout', 'network', 'bad_response', 'upstream_unavailable', 'aborted'].includes(err.code);
}

const TRANSIENT_HTTP = new Set([502, 503, 504]);

/**
 * "running" with the port mapped only means the container runs: Ollama inside may still be
 * starting, and Vast's proxy answers 502 (or the port refuses) meanwhile. Polls GET /api/version
 * until it answers, bounded like the wait for running; other errors (a 401: wrong token) fail at once.
 */
async function waitForLlmServer(ctx: JobContext, deps: MarketplaceDeps, target: BackendTarget): Promise<void> {
  const client = llmClient(target);
  const deadline = Date.now() + (deps.waitTimeoutMs ?? 10 * 60_000);
  const delay = { initialMs: deps.pollIntervalMs ?? 2_000, factor: 1.5, maxMs: Math.max(deps.pollIntervalMs ?? 2_000, 10_000) };
  await ctx.step(
    'llmserver.ready',
    async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.version({ signal: ctx.signal, timeoutMs: 10_000 });
          return;
        } catch (err) {
          const transient = err instanceof LlmServerUnreachableError || (err instanceof LlmServerHttpError && TRANSIENT_HTTP.has(err.status));
          if (!transient || ctx.signal.aborted || Date.now() >= deadline) throw err;
        }
        await sleep(Math.min(backoffDelay(attempt, delay), Math.max(0, deadline - Date.now())), ctx.signal);
      }
    },
    { backend_url: client.baseUrl },
  );
}

/**
 * Destroys and verifies with the key the machine was rented with (`keyed`; else the key the job
 * holds, else the key in use); the key in use takes over only if that key is refused and it can see
 * the machine. Records the outcome in resources (and why it failed) and events. Never throws.
 */
export async function releaseJobInstance(
  ctx: Pick<JobContext, 'emit' | 'setResources'> & { job: Pick<JobRecord, 'job_id'> },
  deps: MarketplaceDeps,
  instanceId: number,
  keyed?: KeyedClient | null,
): Promise<ReleaseResult> {
  const jobId = ctx.job.job_id;
  const own = keyed ?? (await heldClient(deps, jobId));
  const current = deps.access.current();
  const primary = own?.client ?? current?.client ?? null;
  if (!primary) {
    const result = { released: false, verified: false, attempts: 0, message: `cannot release instance ${instanceId}: no marketplace key is configured` };
    await ctx.emit({ event: 'marketplace.instance.destroy', status: 'error', message: result.message, error_type: 'no_key' });
    await ctx.setResources({ marketplace_release_error: result.message });
    return result;
  }
  const fallbacks: VastApi[] = current && current.client !== primary ? [current.client] : [];
  const result = await releaseInstance({
    client: primary,
    fallbackClients: fallbacks,
    instanceId,
    // Not the job's signal: release must still run after a cancel.
    signal: AbortSignal.timeout(120_000),
    onEvent: (e) => {
      void ctx.emit(e).catch(() => undefined);
    },
    ...(deps.releaseRetryDelayMs !== undefined ? { retryDelayMs: deps.releaseRetryDelayMs } : {}),
  });
  await ctx.setResources({ marketplace_instance_released: result.released, marketplace_release_error: result.verified ? null : result.message });
  if (result.verified) {
    // A destroyed instance's proxy token is useless, and its key is no longer needed: don't leave secrets lying around.
    await rm(instanceTokenFile(deps.dataDir, instanceId), { force: true });
    await deps.heldKeys.drop(jobId).catch(() => undefined);
  }
  return result;
}

/** The key a job rented with, as sealed in the data dir, with its client; null when none is held. */
async function heldClient(deps: MarketplaceDeps, jobId: string): Promise<KeyedClient | null> {
  const key = await deps.heldKeys.keyOf(jobId);
  const client = key ? deps.access.clientFor(key) : null;
  return key && client ? { key, client } : null;
}

/**
 * Crash recovery for a job that was running with a rented machine: release it (or only report it
 * when the request said to keep it), including an instance whose id was never recorded but that
 * carries the job's label. The key the job rented with is used, whatever the key in use is now.
 */
export async function recoverInstances(job: JobRecord, ctx: RecoveryContext, deps: MarketplaceDeps): Promise<void> {
  const resources = job.resources ?? {};
  if (resources.marketplace_instance_released) return;
  const own = await heldClient(deps, job.job_id);
  const client = own?.client ?? deps.access.current()?.client ?? null;
  let ids = resources.marketplace_instance_id != null ? [resources.marketplace_instance_id] : [];
  if (ids.length === 0 && job.request.marketplace === true && client) {
    ids = (await findLabelledInstances(client, labelsOfJob(deps.installId, job.job_id), AbortSignal.timeout(60_000))).map((i) => i.id);
    // The lookup answered and nothing carries the job's label: it never rented, and needs no key.
    if (ids.length === 0) await deps.heldKeys.drop(job.job_id).catch(() => undefined);
  }
  const releaseCtx = { emit: ctx.emit, setResources: ctx.setResources, job };
  for (const id of ids) {
    if (resources.marketplace_stop_instance === false) {
      await ctx.emit({
        event: 'marketplace.instance.kept',
        status: 'info',
        message: `instance ${id} was left running after the interruption, as the request asked (keep the machine after the job); it is still billing until you release it`,
        labels: { instance_id: id },
      });
      continue;
    }
    await ctx.emit({
      event: 'job.recover',
      status: 'info',
      message: `the server stopped while this job held instance ${id}: releasing it`,
      labels: { instance_id: id },
    });
    const result = await releaseJobInstance(releaseCtx, deps, id, own);
    ctx.logger.info('released an instance after an interruption', { instance_id: id, released: result.released, verified: result.verified });
  }
}
