import { VLLM_TEMPLATE_NAME } from '../../shared/request-fields';
import { MarketplaceProvisioningError } from './errors';
import { MARKETPLACE_EVENTS, timedStep, type MarketplaceEventSink } from './events';
import type { RentedServer } from './rented-server';
import type { VastApi } from './vast-client';
import type { MarketplaceTemplate } from './vast-wire';

/**
 * Which template a rent starts from: the one the request names by hash, or, for a rented vLLM
 * server without one, the marketplace's template of that name (Vast's template search on `name`,
 * own and public ones): recommended first, then the most used. Not found is a clear
 * `template_not_found` that names the search.
 */

type LookupOptions = { client: Pick<VastApi, 'getTemplateByHash' | 'searchTemplates'>; signal?: AbortSignal | undefined; onEvent?: MarketplaceEventSink | undefined };

/** The best of the templates a name search found: recommended, then the most used, then the lowest id. */
export function pickNamedTemplate(templates: readonly MarketplaceTemplate[], name: string): MarketplaceTemplate | null {
  const named = templates.filter((t) => (t.name ?? '').trim() === name);
  const sorted = [...named].sort((a, b) => Number(b.recommended === true) - Number(a.recommended === true) || (b.count_created ?? 0) - (a.count_created ?? 0) || a.id - b.id);
  return sorted[0] ?? null;
}

/** What a failed name search tells the user: the search it made and what to do. */
export function namedTemplateMissing(name: string): string {
  return `No template named "${name}" was found on Vast.ai (the template search for name = "${name}", your templates and public ones). Give the hash of a vLLM template as template_hash (GET /v1/marketplace/templates?q=vllm lists them).`;
}

/** The marketplace's template of this exact name, or null. */
export async function findTemplateByName(opts: LookupOptions, name: string): Promise<MarketplaceTemplate | null> {
  const found = await opts.client.searchTemplates({ name: { eq: name } }, { signal: opts.signal });
  return pickNamedTemplate(found, name);
}

async function byHash(opts: LookupOptions, hash: string): Promise<MarketplaceTemplate> {
  const template = await opts.client.getTemplateByHash(hash, { signal: opts.signal });
  if (!template) {
    throw new MarketplaceProvisioningError(
      `Template "${hash}" was not found on Vast.ai (neither your templates nor public ones). Check the template: editing a template on Vast.ai gives it a new hash.`,
      'template_not_found',
    );
  }
  return template;
}

async function byName(opts: LookupOptions, name: string): Promise<MarketplaceTemplate> {
  const template = await findTemplateByName(opts, name);
  if (!template) throw new MarketplaceProvisioningError(namedTemplateMissing(name), 'template_not_found');
  return template;
}

/**
 * The rent's template, as a timed `marketplace.template.lookup` step: by hash when the request
 * gives one; a vLLM server without one is found by name (VLLM_TEMPLATE_NAME); an Ollama machine
 * needs a hash.
 */
export async function resolveTemplate(opts: LookupOptions, request: { template_hash?: string | undefined }, server: RentedServer): Promise<MarketplaceTemplate> {
  const hash = request.template_hash;
  if (!hash && server !== 'vllm') throw new MarketplaceProvisioningError('Renting a GPU needs a template (the Vast.ai template the machine starts from)', 'invalid_request');
  return await timedStep(
    opts.onEvent,
    MARKETPLACE_EVENTS.templateLookup,
    hash ? { template_hash: hash } : { template_name: VLLM_TEMPLATE_NAME },
    () => (hash ? byHash(opts, hash) : byName(opts, VLLM_TEMPLATE_NAME)),
    (t) => ({ labels: { template_id: t.id, template_hash: t.hash_id, template_name: t.name ?? null, image: t.image ?? null } }),
  );
}
