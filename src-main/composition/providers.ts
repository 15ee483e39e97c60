import type { CatalogEntry, CostEstimationRequest, CostEstimationResponse, LlmModelsQuery, LlmModelsResponse } from '../../shared';
import type { Logger } from '../engine/types';
import { listBackendModels } from '../llm/list-models';
import { buildCatalog, type Catalog } from '../marketplace/catalog';
import { estimateCost } from '../marketplace/estimate';
import type { VastClient } from '../marketplace/vast-client';
import type { Config } from '../app/config';
import { MarketplaceKeyHolder, type PersistMarketplaceKey } from '../app/marketplace-key';
import type { SettingsStore } from '../app/settings';
import { toUpstreamProblem } from '../app/upstream-errors';

/** The provider calls the service and the workflows need, replaceable in tests. */
export type Providers = {
  estimate(request: CostEstimationRequest): Promise<CostEstimationResponse>;
  catalog(): CatalogEntry[];
  catalogIndex(): Catalog;
  listLlmModels(query: LlmModelsQuery): Promise<LlmModelsResponse>;
  /** A marketplace client for the key in use (see MarketplaceKeyHolder), or null without a key. */
  marketplace(): VastClient | null;
};

/** The key holder: VAST_API_KEY, plus in the desktop app its stored key and a way to save a new one. */
export function createMarketplaceKey(config: Config, app: { key?: string | undefined; persist?: PersistMarketplaceKey | undefined } = {}): MarketplaceKeyHolder {
  return new MarketplaceKeyHolder({ baseUrl: config.marketplaceApiUrl, environmentKey: config.vastApiKey, appKey: app.key, persist: app.persist });
}

export function createProviders({ config, settings, log, marketplaceKey }: { config: Config; settings: SettingsStore; log: Logger; marketplaceKey?: MarketplaceKeyHolder }): Providers {
  const catalog = buildCatalog(settings.read().extra_catalog_models ?? []);
  for (const issue of catalog.issues) log.warn('catalog setting ignored', { issue });
  // Read per call: the desktop app may set or clear its key while the server runs.
  const key = marketplaceKey ?? createMarketplaceKey(config);
  return {
    estimate: (request) => estimateCost(request, { client: key.client(), catalog }),
    catalog: () => catalog.entries,
    catalogIndex: () => catalog,
    listLlmModels: (query) => listBackendModels(query).catch(toUpstreamProblem),
    marketplace: () => key.client(),
  };
}
