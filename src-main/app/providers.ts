import type { CatalogEntry, CostEstimationRequest, CostEstimationResponse, LlmModelsQuery, LlmModelsResponse } from '../../shared';
import type { Logger } from '../engine/types';
import type { Config } from './config';
import type { SettingsStore } from './settings';

/** The provider calls the service needs (marketplace, llmserver), replaceable in tests. */
export type Providers = {
  estimate(request: CostEstimationRequest): Promise<CostEstimationResponse>;
  catalog(): CatalogEntry[];
  listLlmModels(query: LlmModelsQuery): Promise<LlmModelsResponse>;
};

export function createProviders(_deps: { config: Config; settings: SettingsStore; log: Logger }): Providers {
  throw new Error('providers are wired in the marketplace/llmserver step');
}
