import type { CatalogEntry, CostEstimationRequest, CostEstimationResponse, LlmModelsQuery, LlmModelsResponse } from '../../shared';
import type { Logger } from '../engine/types';
import { listBackendModels } from '../llm/list-models';
import { buildCatalog, type Catalog } from '../marketplace/catalog';
import { estimateCost } from '../marketplace/estimate';
import type { MarketplaceAccess } from '../marketplace/access';
import type { VastApi, VastClientOptions } from '../marketplace/vast-client';
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
  marketplace(): VastApi | null;
  /** The key in use and a client for any other key (the one a job rented with, until its machine is gone). */
  marketplaceAccess: MarketplaceAccess;
};

export type MarketplaceClientTuning = Partial<Omit<VastClientOptions, 'baseUrl' | 'apiKey'>>;

/** The key holder: VAST_API_KEY, plus in the desktop app its stored key and a way to save a new one. */
export function createMarketplaceKey(
  config: Config,
  app: { key?: string | undefined; persist?: PersistMarketplaceKey | undefined } = {},
  more: { log?: Logger; clientOptions?: MarketplaceClientTuning | undefined } = {},
): MarketplaceKeyHolder {
  const log = more.log;
  return new MarketplaceKeyHolder({
    baseUrl: config.marketplaceApiUrl,
    environmentKey: config.vastApiKey,
    appKey: app.key,
    persist: app.persist,
    // BENCHDESK_MARKETPLACE_PACING scales Vast's pacing (0: off, against a fake); tests may set their own.
    clientOptions: { ...more.clientOptions, pacing: { scale: config.marketplacePacingScale, ...more.clientOptions?.pacing } },
    ...(log ? { warn: (message: string, fields?: Record<string, unknown>) => log.warn(message, fields ?? {}) } : {}),
  });
}

export function createProviders({ config, settings, log, marketplaceKey }: { config: Config; settings: SettingsStore; log: Logger; marketplaceKey?: MarketplaceKeyHolder }): Providers {
  const catalog = buildCatalog(settings.read().extra_catalog_models ?? []);
  for (const issue of catalog.issues) log.warn('catalog setting ignored', { issue });
  // Read per call: the desktop app may set or clear its key while the server runs.
  const key = marketplaceKey ?? createMarketplaceKey(config, {}, { log });
  return {
    estimate: (request) => estimateCost(request, { client: key.client(), catalog, apiUrl: config.marketplaceApiUrl }),
    catalog: () => catalog.entries,
    catalogIndex: () => catalog,
    listLlmModels: (query) => listBackendModels(query).catch(toUpstreamProblem),
    marketplace: () => key.client(),
    marketplaceAccess: key,
  };
}
