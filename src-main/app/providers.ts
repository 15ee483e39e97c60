import type { CatalogEntry, CostEstimationRequest, CostEstimationResponse, LlmModelsQuery, LlmModelsResponse } from '../../shared';
import type { Logger } from '../engine/types';
import { listBackendModels } from '../llm/list-models';
import { buildCatalog, type Catalog } from '../marketplace/catalog';
import { estimateCost } from '../marketplace/estimate';
import { VastClient } from '../marketplace/vast-client';
import type { Config } from './config';
import type { SettingsStore } from './settings';
import { toUpstreamProblem } from './upstream-errors';

/** The provider calls the service and the workflows need, replaceable in tests. */
export type Providers = {
  estimate(request: CostEstimationRequest): Promise<CostEstimationResponse>;
  catalog(): CatalogEntry[];
  catalogIndex(): Catalog;
  listLlmModels(query: LlmModelsQuery): Promise<LlmModelsResponse>;
  /** A marketplace client, or null when no VAST_API_KEY is configured. */
  marketplace(): VastClient | null;
};

export function createProviders({ config, settings, log }: { config: Config; settings: SettingsStore; log: Logger }): Providers {
  const catalog = buildCatalog(settings.read().extra_catalog_models ?? []);
  for (const issue of catalog.issues) log.warn('catalog setting ignored', { issue });
  const client = config.vastApiKey ? new VastClient({ baseUrl: config.marketplaceApiUrl, apiKey: config.vastApiKey }) : null;
  return {
    estimate: (request) => estimateCost(request, { client, catalog }),
    catalog: () => catalog.entries,
    catalogIndex: () => catalog,
    listLlmModels: (query) => listBackendModels(query).catch(toUpstreamProblem),
    marketplace: () => client,
  };
}
