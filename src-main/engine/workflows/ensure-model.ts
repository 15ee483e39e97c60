import type { CatalogEntry, ModelEntry } from '../../../shared';
import { roundUsd } from '../../lease/cost';
import type { LeaseDownload } from '../../lease/lease-record';
import { sameModel } from '../../llm/model-name';
import type { LlmServerClient, PullProgress } from '../../llm/llmserver-client';
import { modelDownloadGb } from '../../marketplace/catalog';
import type { JobContext } from '../types';
import { llmClient } from './backend';
import type { ProvisionedInstance } from './marketplace-instance';

/** What a pull downloaded: the sum of its layers' sizes, from the stream's `total` per digest. */
export type PullTotals = { bytes: number };

/**
 * Pulls the model unless the server has it, reporting progress as events (throttled) and progress %.
 * `onPulled` gets the pull's size (the stream's totals) when a pull ran.
 */
export async function ensureModel(ctx: JobContext, client: LlmServerClient, model: string, options: { onPulled?: (totals: PullTotals) => void } = {}): Promise<ModelEntry[]> {
  const models = await ctx.step('llmserver.models', () => client.listModels({ signal: ctx.signal }), { backend_url: client.baseUrl });
  if (models.some((m) => sameModel(m.name, model))) return models;
  await ctx.setProgress('pull', `pulling ${model}`, 0);
  let lastReport = 0;
  let lastStatus = '';
  const layers = new Map<string, number>();
  const onProgress = (p: PullProgress) => {
    if (p.digest && p.total !== undefined) layers.set(p.digest, p.total);
    const now = Date.now();
    // A pull streams hundreds of lines: record status changes and at most one line per 2 s.
    if (p.status === lastStatus && now - lastReport < 2000) return;
    lastStatus = p.status;
    lastReport = now;
    void ctx
      .emit({ event: 'llmserver.pull.progress', status: 'info', message: p.status, labels: { model, percent: p.percent ?? null, completed: p.completed ?? null, total: p.total ?? null } })
      .catch(() => undefined);
    if (p.percent !== undefined) void ctx.setProgress('pull', `${p.status} (${p.percent.toFixed(0)}%)`, p.percent).catch(() => undefined);
  };
  await ctx.step('llmserver.pull', () => client.pull(model, onProgress, ctx.signal), { model });
  options.onPulled?.({ bytes: [...layers.values()].reduce((a, b) => a + b, 0) });
  return client.listModels({ signal: ctx.signal });
}

/**
 * What putting `model` on a machine downloaded: the pull stream's totals when benchdesk pulled it;
 * the model's size on the machine when the template had pulled it at boot (that download is
 * billed too); the catalog's figure when neither is known. At the host's inet_down_cost ($/GB);
 * null usd when the host does not say.
 */
export function downloadOf(model: string, installed: readonly ModelEntry[], pulledBytes: number, catalog: CatalogEntry, inetDownCost: number | null): LeaseDownload {
  const size = installed.find((m) => sameModel(m.name, model))?.size ?? null;
  const source = pulledBytes > 0 ? 'pull' : size ? 'installed' : 'catalog';
  const gb = Math.round((pulledBytes > 0 ? pulledBytes / 1e9 : size ? size / 1e9 : modelDownloadGb(catalog)) * 1000) / 1000;
  return { model, gb, usd: inetDownCost === null ? null : roundUsd(gb * inetDownCost), source };
}

/**
 * Puts the model on a rented machine and adds what its download cost to the machine's lease (the
 * ledger): from then on it is part of the running cost, the spend limit (checked at once) and the
 * job's cost record. A rented vLLM has no pull: it downloaded the model it serves at start (see
 * countServedDownload).
 */
export async function pullOnInstance(ctx: JobContext, instance: ProvisionedInstance, model: string): Promise<void> {
  if (instance.server === 'vllm') return countServedDownload(ctx, instance, model);
  let pulled: PullTotals | null = null;
  const models = await ensureModel(ctx, llmClient(instance.target), model, { onPulled: (totals) => (pulled = totals) });
  await addInstanceDownload(ctx, instance, downloadOf(model, models, (pulled as PullTotals | null)?.bytes ?? 0, instance.model, instance.inetDownCost));
}

/**
 * A rented vLLM downloads its model's weights from Hugging Face at start, before it serves: no
 * benchdesk pull, but the download is billed all the same. Its size is not reported by vLLM, so it
 * is the catalog's figure (download_gb, or the memory need) at the host's $/GB, source `catalog`.
 */
export async function countServedDownload(ctx: JobContext, instance: ProvisionedInstance, model: string): Promise<void> {
  await addInstanceDownload(ctx, instance, downloadOf(model, [], 0, instance.model, instance.inetDownCost));
}

async function addInstanceDownload(ctx: JobContext, instance: ProvisionedInstance, download: LeaseDownload): Promise<void> {
  const model = download.model;
  await instance.lease.addDownload(download);
  instance.meter.check();
  // On the job record too: a kept machine's running cost (Overview, job page) includes it.
  if (download.usd !== null) await ctx.setResources({ download_usd: instance.lease.cost().download_usd });
  await ctx.info(
    'cost.download',
    `${model}: ${download.gb} GB downloaded${download.source === 'catalog' && instance.server === 'vllm' ? ' by vLLM at start (the catalog\'s size)' : ''}${download.usd === null ? ' (this host does not say what downloads cost)' : ` at $${instance.inetDownCost}/GB = $${download.usd.toFixed(4)}`}`,
    { model, download_gb: download.gb, download_usd: download.usd, inet_down_cost: instance.inetDownCost, source: download.source },
  );
}
