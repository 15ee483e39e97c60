import type { ModelEntry } from '../../../shared';
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

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * Puts the model on a rented machine and records what its download cost: the pull stream's totals
 * when benchdesk pulled it; the model's size on the machine when the template had pulled it at boot
 * (that download is billed too); the catalog's figure when neither is known. At the host's
 * inet_down_cost ($/GB), it joins the running cost (and the spend limit) and the job's cost record.
 */
export async function pullOnInstance(ctx: JobContext, instance: ProvisionedInstance, model: string): Promise<void> {
  let pulled: PullTotals | null = null;
  const models = await ensureModel(ctx, llmClient(instance.target), model, { onPulled: (totals) => (pulled = totals) });
  const pulledBytes = (pulled as PullTotals | null)?.bytes ?? 0;
  const installed = models.find((m) => sameModel(m.name, model))?.size ?? null;
  const source = pulledBytes > 0 ? 'pull' : installed ? 'installed' : 'catalog';
  const gb = Math.round((pulledBytes > 0 ? pulledBytes / 1e9 : installed ? installed / 1e9 : modelDownloadGb(instance.model)) * 1000) / 1000;
  const usd = instance.inetDownCost === null ? null : round4(gb * instance.inetDownCost);
  instance.download = { gb, usd, source };
  if (usd !== null) {
    instance.meter.addDownload(usd);
    // On the job record too: a kept machine's running cost (Overview, job page) includes it.
    await ctx.setResources({ download_usd: instance.meter.downloadUsd });
  }
  await ctx.info(
    'cost.download',
    `${model}: ${gb} GB downloaded${usd === null ? ' (this host does not say what downloads cost)' : ` at $${instance.inetDownCost}/GB = $${usd.toFixed(4)}`}`,
    { model, download_gb: gb, download_usd: usd, inet_down_cost: instance.inetDownCost, source },
  );
}
