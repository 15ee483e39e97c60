import type { CatalogEntry, RentedOffer, ValidationIssue } from '../../../shared';
import type { MarketplaceAccess } from '../../marketplace/access';
import type { MarketplaceEvent } from '../../marketplace/events';
import type { RentRequest } from '../../marketplace/provisioning';
import { resolveCatalogModel, type Catalog } from '../../marketplace/catalog';
import type { Lease, LeasedMachine, ReleaseOutcome } from '../../lease/lease';
import { ProvisioningFailedError } from '../../lease/lease';
import type { Leases } from '../../lease/leases';
import type { JobContext } from '../types';
import type { BackendApi } from '../../../shared';
import { VLLM_TEMPLATE_NAME } from '../../../shared/request-fields';
import { isMarketplaceError } from '../../marketplace/errors';
import type { RentedServer } from '../../marketplace/rented-server';
import { findTemplateByName, namedTemplateMissing } from '../../marketplace/template-lookup';
import { OpenAiClient } from '../../llm/openai-client';
import { llmClient, type BackendTarget } from './backend';
import { CostMeter } from './cost-meter';
import { waitForOllama } from './llm-ready';

/**
 * A job's rented machine, through its lease (src-main/lease): the job opens the lease, which rents
 * and waits for the machine; the job's part is its Ollama being ready, the running cost and spend
 * limit of its meter, and its record (resources) saying what it holds, so the job page and a
 * crash recovery see it. The machine's costs are the ledger's.
 */

export type MarketplaceDeps = {
  /** The data dir: where a serving job keeps its per-request records. */
  dataDir: string;
  /** Every rented machine's lease, and the ledger of what they cost. */
  leases: Leases;
  /** The key in use (a job needs one to rent). */
  access: MarketplaceAccess;
  catalog(): Catalog;
  /** Bound on the wait for the rented machine's Ollama (default 10 min), or for its vLLM to serve the model (default 20 min: it downloads and loads the weights at start). */
  waitTimeoutMs?: number;
  /** Poll cadence while waiting for Ollama (tests make it fast). */
  pollIntervalMs?: number;
  /** Cadence of `cost.update` while a job holds a machine (default 30 s). */
  costUpdateIntervalMs?: number;
  /** The `max_cost_usd_default` setting: the spend limit of a request that sets none (null: off). */
  maxCostDefault?: () => number | null;
  /** Told when a background step fails (the cost meter's timer), so nothing escapes to the process. */
  logError?: (message: string, fields: Record<string, unknown>) => void;
};

/** The request fields that price and limit a rented machine (benchmark and llm-instance). */
export type SpendRequest = { max_cost_usd?: number | undefined; estimated_duration_seconds?: number | undefined };

/** The job's spend limit: its own, else the settings default, else none. */
export function spendLimit(deps: Pick<MarketplaceDeps, 'maxCostDefault'>, request: SpendRequest): number | null {
  return request.max_cost_usd ?? deps.maxCostDefault?.() ?? null;
}

/**
 * What a rented machine serves for this request: `openai` rents a vLLM template (its OpenAI-compatible
 * API); `ollama` and `auto` rent Ollama (on a rented machine the template decides, and it is Ollama's).
 */
export function rentedServerOf(request: { backend_api?: BackendApi | undefined }): RentedServer {
  return request.backend_api === 'openai' ? 'vllm' : 'ollama';
}

/**
 * The submit-time check of a rented vLLM server without a template hash: its template is found by
 * name on the marketplace, and none found is a 422 naming the search. A search that fails (the
 * marketplace unreachable) says nothing here: the rent makes the same search and fails clearly.
 */
export async function rentedTemplateIssues(
  deps: Pick<MarketplaceDeps, 'access'>,
  request: { marketplace: boolean; template_hash?: string | undefined; backend_api?: BackendApi | undefined },
): Promise<ValidationIssue[]> {
  if (!request.marketplace || request.template_hash || rentedServerOf(request) !== 'vllm') return [];
  const keyed = deps.access.current();
  if (!keyed) return [];
  try {
    const found = await findTemplateByName({ client: keyed.client, signal: AbortSignal.timeout(30_000) }, VLLM_TEMPLATE_NAME);
    return found ? [] : [{ path: 'template_hash', message: namedTemplateMissing(VLLM_TEMPLATE_NAME) }];
  } catch (err) {
    if (isMarketplaceError(err)) return [];
    throw err;
  }
}

/** Submit-time checks for `marketplace: true`: a key is configured and the model is in the catalog. */
export function marketplaceIssues(deps: Pick<MarketplaceDeps, 'access' | 'catalog'>, request: { marketplace: boolean; model?: string | undefined }): ValidationIssue[] {
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
  lease: Lease;
  instanceId: number;
  /** Where the server is, and the API it speaks (`ollama`, or `openai` for a rented vLLM). */
  target: BackendTarget;
  /** What its template serves: Ollama pulls models; vLLM serves the one it started with. */
  server: RentedServer;
  /** The template it was rented from (the manifests name it). */
  template: { hash_id: string; name: string | null };
  model: CatalogEntry;
  offer: RentedOffer;
  dphTotal: number;
  rentedAt: string;
  /** Where the proxy token is kept (0600) so the user can reach the instance's Ollama. */
  tokenFile: string | null;
  /** Running cost and spend limit while the job holds the machine; the workflow stops it when it lets go. */
  meter: CostMeter;
  /** The host's download price ($/GB); null when it does not say. */
  inetDownCost: number | null;
};

/** The job's event sink for the lease's marketplace steps (events are written in the background). */
export function leaseEvents(ctx: Pick<JobContext, 'emit'>): (e: MarketplaceEvent) => void {
  return (e) => {
    void ctx.emit(e).catch(() => undefined);
  };
}

/**
 * Rents the cheapest fitting offer through the job's lease and waits until its Ollama answers.
 * The instance id is in the job's resources as soon as it exists, and the meter runs from there
 * (billing starts with the rent). A failure after the rent releases the machine before it
 * propagates (the lease does), and the release is recorded on the job.
 */
export async function provisionInstance(
  ctx: JobContext,
  deps: MarketplaceDeps,
  request: RentRequest & SpendRequest & { model: string; backend_api?: BackendApi | undefined },
  /** Release after a crash (benchmark: its marketplace_stop_instance; llm-instance: yes until it succeeded). */
  releaseIfInterrupted: boolean,
  /** What the machine must hold when it is not one catalog model. */
  sizing?: CatalogEntry,
): Promise<ProvisionedInstance> {
  if (!deps.access.current()) throw new Error('no marketplace key is configured (set VAST_API_KEY)');
  const model = sizing ?? resolveCatalogModel(request.model, deps.catalog());
  if (!model) throw new Error(`model '${request.model}' is not in the marketplace catalog`);
  const server = rentedServerOf(request);
  await ctx.setProgress('provision', `renting a machine for ${model.name}${server === 'vllm' ? ' (vLLM)' : ''}`);
  const maxCostUsd = spendLimit(deps, request);
  const lease = await deps.leases.open({ owner: { kind: 'job', job_id: ctx.job.job_id, job_kind: ctx.job.kind }, tenantId: ctx.job.tenant_id, maxCostUsd, releaseWhenInterrupted: releaseIfInterrupted });
  let meter: CostMeter | null = null;
  let machine: LeasedMachine;
  try {
    machine = await lease.provision({
      request,
      sizing: model,
      ollamaModel: request.model,
      server,
      budget: { maxCostUsd, durationSeconds: request.estimated_duration_seconds ?? 3600 },
      signal: ctx.signal,
      onEvent: leaseEvents(ctx),
      onRented: async (r) => {
        await ctx.setResources({ marketplace_instance_id: r.instanceId, marketplace_instance_released: false, marketplace_stop_instance: releaseIfInterrupted, dph_total: r.dphTotal, rented_at: r.rentedAt });
        // Billing runs from here: the meter reports it (and enforces the limit) during the wait too.
        meter = new CostMeter(ctx, lease, {
          instanceId: r.instanceId,
          maxCostUsd,
          ...(deps.costUpdateIntervalMs !== undefined ? { intervalMs: deps.costUpdateIntervalMs } : {}),
          ...(deps.logError ? { logError: deps.logError } : {}),
        });
        meter.start();
      },
      ready: (m) => waitForLlmServer(ctx, deps, { backendUrl: m.backendUrl, headers: m.headers }, server === 'vllm' ? request.model : null),
    });
  } catch (err) {
    (meter as CostMeter | null)?.stop();
    if (err instanceof ProvisioningFailedError && err.release) await recordRelease(ctx, lease, err.release);
    throw err;
  }
  const started = meter as CostMeter | null;
  if (!started) throw new Error(`instance ${machine.instanceId} was rented but its cost meter never started`);
  return {
    lease,
    meter: started,
    instanceId: machine.instanceId,
    target: { backendUrl: machine.backendUrl, headers: machine.headers, api: machine.server === 'vllm' ? 'openai' : 'ollama' },
    server: machine.server,
    template: machine.template,
    model,
    offer: machine.offer,
    dphTotal: machine.dphTotal,
    rentedAt: machine.rentedAt,
    tokenFile: machine.tokenFile,
    inetDownCost: machine.inetDownCost,
  };
}

/**
 * The rented machine's server answers, as a timed `llmserver.ready` step of the job: Ollama's
 * version, or (`servedModel` given) vLLM's `GET /v1/models` listing the model it loads at start.
 */
function waitForLlmServer(ctx: JobContext, deps: MarketplaceDeps, target: BackendTarget, servedModel: string | null): Promise<void> {
  const opts = { signal: ctx.signal, ...(deps.waitTimeoutMs !== undefined ? { timeoutMs: deps.waitTimeoutMs } : {}), ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}) };
  if (servedModel === null) return ctx.step('llmserver.ready', () => waitForOllama(target, opts), { backend_url: llmClient(target).baseUrl });
  const client = new OpenAiClient({ baseUrl: target.backendUrl, headers: target.headers });
  return ctx.step('llmserver.ready', () => client.waitUntilServing(servedModel, { ...opts, timeoutMs: opts.timeoutMs ?? VLLM_READY_TIMEOUT_MS }).then(() => undefined), {
    backend_url: client.baseUrl,
    backend_api: 'openai',
    model: servedModel,
  });
}

/** vLLM downloads and loads the weights before it serves: a longer default wait than Ollama's start. */
const VLLM_READY_TIMEOUT_MS = 20 * 60_000;

/** The job's record follows its machine's release: released, why not, and what the machine cost (the ledger's figure). */
export async function recordRelease(ctx: Pick<JobContext, 'setResources'>, lease: Lease, outcome: ReleaseOutcome): Promise<void> {
  await ctx.setResources({
    marketplace_instance_released: outcome.released,
    marketplace_release_error: outcome.verified ? null : outcome.message,
    cost_usd: outcome.cost.cost_usd,
    download_usd: outcome.cost.download_usd,
    ...(lease.record.released_at ? { released_at: lease.record.released_at } : {}),
  });
}

/**
 * Releases the job's machine through its lease (with the key it was rented with) and records the
 * outcome on the job. An unconfirmed release is retried by the lease service until it is; the
 * machine counts in the ledger meanwhile. Never throws.
 */
export async function releaseJobLease(ctx: Pick<JobContext, 'emit' | 'setResources'>, lease: Lease, reason: string): Promise<ReleaseOutcome> {
  const outcome = await lease.release(reason, leaseEvents(ctx));
  await recordRelease(ctx, lease, outcome).catch(() => undefined);
  return outcome;
}

