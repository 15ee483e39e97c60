import { existsSync } from 'node:fs';
import path from 'node:path';
import { createAgentRegistry, type AgentRegistry } from '../agents/registry';
import type { AnyJobHandler, Logger } from '../engine/types';
import { agenticAgentWorkflow } from '../engine/workflows/agentic-agent';
import { benchmarkWorkflow } from '../engine/workflows/benchmark';
import { llmInstanceWorkflow } from '../engine/workflows/llm-instance';
import type { MarketplaceDeps } from '../engine/workflows/marketplace-instance';
import type { Config } from './config';
import type { Providers } from './providers';
import type { SettingsStore } from './settings';

/**
 * The argv prefix that re-launches this program as `benchdesk …` (for bundled drivers such as
 * holmes and k8sgpt): the built CLI next to this bundle, or the repo's build when running from source.
 */
export function selfCommand(): string[] {
  const beside = path.join(import.meta.dirname, 'cli.js');
  const cli = existsSync(beside) ? beside : path.resolve(import.meta.dirname, '..', '..', 'dist', 'main', 'cli.js');
  return [process.execPath, cli];
}

export type WorkflowDeps = {
  config: Config;
  providers: Providers;
  settings: SettingsStore;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** Test seams: faster polling against fakes. */
  marketplace?: Partial<Pick<MarketplaceDeps, 'waitTimeoutMs' | 'pollIntervalMs' | 'releaseRetryDelayMs'>>;
  agents?: AgentRegistry;
};

export function createAgents(deps: Pick<WorkflowDeps, 'config' | 'settings' | 'log' | 'env'>): AgentRegistry {
  const registry = createAgentRegistry({
    selfCommand: selfCommand(),
    drivers: deps.settings.read().drivers ?? {},
    // In the desktop app process.execPath is the Electron binary: it runs cli.js as plain Node
    // (the bundled holmes/k8sgpt drivers) only with ELECTRON_RUN_AS_NODE, else it starts the GUI.
    env: process.versions.electron ? { ...deps.env, ELECTRON_RUN_AS_NODE: '1' } : deps.env,
    timeoutMs: deps.config.driverTimeoutMs,
  });
  for (const warning of registry.warnings) deps.log.warn('agent driver ignored', { warning });
  return registry;
}

/** One handler per job kind, composed from the providers. */
export function createWorkflows(deps: WorkflowDeps): AnyJobHandler[] {
  const agents = deps.agents ?? createAgents(deps);
  const marketplace: MarketplaceDeps = {
    marketplace: deps.providers.marketplace,
    catalog: deps.providers.catalogIndex,
    dataDir: deps.config.dataDir,
    ...deps.marketplace,
  };
  const agentDeps = { agents, env: deps.env };
  return [llmInstanceWorkflow(marketplace), agenticAgentWorkflow(agentDeps), benchmarkWorkflow({ ...agentDeps, ...marketplace })];
}
