import type { LlmInstanceExistingResult, LlmInstanceMarketplaceResult, LlmInstanceRequest } from '../../../shared';
import type { JobContext, JobHandler } from '../types';
import { JobFailure } from '../types';
import { backendUrlIssues, connectBackend, requestTarget, warmupStep } from './backend';
import { pullOnInstance } from './ensure-model';
import { marketplaceIssues, rentedTemplateIssues, provisionInstance, releaseJobLease, spendLimit, type MarketplaceDeps } from './marketplace-instance';
import { recoverInstances } from './recover-machine';

export { ensureModel } from './ensure-model';

async function existingBackend(ctx: JobContext<'llm-instance'>): Promise<LlmInstanceExistingResult> {
  const { request } = ctx;
  const client = await connectBackend(ctx, requestTarget(request));
  await ctx.setProgress('check', `listing models at ${client.baseUrl}`);
  const models = await ctx.step('llmserver.models', () => client.listModels({ signal: ctx.signal }), { backend_url: client.baseUrl, backend_api: client.api });
  if (request.model && request.backend_warmup) {
    if (!models.some((m) => client.isModel(m.name, request.model ?? ''))) {
      const has = client.api === 'openai' ? 'served' : 'installed';
      throw new JobFailure('model_not_found', `model '${request.model}' is not ${has} on ${client.baseUrl}; ${has}: ${models.map((m) => m.name).join(', ') || 'none'}`);
    }
    await warmupStep(ctx, client, request.model, request.backend_warmup_timeout);
  }
  return { mode: 'existing', backend_url: client.baseUrl, models, backend_api: client.api };
}

async function marketplaceBackend(ctx: JobContext<'llm-instance'>, deps: MarketplaceDeps): Promise<LlmInstanceMarketplaceResult> {
  const { request } = ctx;
  const modelName = request.model ?? '';
  const instance = await provisionInstance(ctx, deps, { ...request, model: modelName }, true);
  try {
    // The template's API: Ollama's, or the OpenAI-compatible one of a rented vLLM (no detection needed).
    const client = await connectBackend(ctx, instance.target);
    await instance.meter.tick('phase:provision:ok');
    await pullOnInstance(ctx, instance, modelName);
    await instance.meter.tick('phase:pull:ok');
    if (request.backend_warmup) {
      await warmupStep(ctx, client, modelName, request.backend_warmup_timeout);
      await instance.meter.tick('phase:warmup:ok');
    }
    // The limit may have been reached at the last boundary: the job must not end with the machine kept.
    if (ctx.signal.aborted) throw new Error(`stopped: ${String(ctx.signal.reason)}`);
  } catch (err) {
    instance.meter.stop();
    // Nobody will use a half-ready machine: release it before the job fails or ends cancelled.
    await ctx.emit({ event: 'job.cleanup', status: 'info', message: `releasing instance ${instance.instanceId} because the job did not complete` });
    await releaseJobLease(ctx, instance.lease, instance.meter.exceeded ? 'budget_exceeded' : 'cleanup');
    throw err;
  }
  // The job hands the machine over: its lease is kept, billing until released; the ledger counts it
  // and the lease service checks its spend limit (at least every 5 s) from here.
  instance.meter.stop();
  await instance.lease.keep(spendLimit(deps, request));
  await ctx.setResources({ marketplace_stop_instance: false });
  await ctx.info('marketplace.instance.kept', `instance ${instance.instanceId} stays up (that is the point of this job); it bills $${instance.dphTotal}/h until you release it`, {
    instance_id: instance.instanceId,
  });
  return {
    mode: 'marketplace',
    backend_url: instance.target.backendUrl,
    backend_api: instance.server === 'vllm' ? 'openai' : 'ollama',
    // The name the server answers to (what was pulled and warmed), not the catalog entry that sized the GPU.
    model_name: modelName,
    catalog_model: instance.model.name,
    contract_id: instance.instanceId,
    offer: instance.offer,
    dph_total: instance.dphTotal,
    rented_at: instance.rentedAt,
    instance_running: true,
    backend_auth: instance.tokenFile ? { type: 'bearer', token_file: instance.tokenFile } : null,
    message: `Instance ${instance.instanceId} is running and billing $${instance.dphTotal}/h until you release it.`,
  };
}

/** llm-instance (design §4, §13b): an existing llmserver, or a rented marketplace machine running Ollama (or vLLM with backend_api openai). */
export function llmInstanceWorkflow(deps: MarketplaceDeps): JobHandler<'llm-instance'> {
  return {
    kind: 'llm-instance',
    async validate(request: LlmInstanceRequest) {
      return [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request), ...(await rentedTemplateIssues(deps, request))];
    },
    run: (ctx) => (ctx.request.marketplace ? marketplaceBackend(ctx, deps) : existingBackend(ctx)),
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
  };
}
