import { existsSync } from 'node:fs';
import path from 'node:path';
import { createAgentRegistry, type AgentRegistry } from '../agents/registry';
import type { AnyJobHandler, Logger } from '../engine/types';
import { agenticAgentWorkflow } from '../engine/workflows/agentic-agent';
import { benchmarkWorkflow } from '../engine/workflows/benchmark';
import { llmInstanceWorkflow } from '../engine/workflows/llm-instance';
import { servingBenchmarkWorkflow } from '../engine/workflows/serving-benchmark';
import { suiteWorkflow } from '../engine/workflows/suite';
import type { SuiteSource } from '../engine/workflows/suite';
import type { MarketplaceDeps } from '../engine/workflows/marketplace-instance';
import type { Leases } from '../lease/leases';
import type { Config } from '../app/config';
import type { Providers } from './providers';
import type { SettingsStore } from '../app/settings';
import type { SnapshotLeases } from '../snapshots/replays';

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
  /** Every rented machine's lease, and the ledger of what they cost. */
  leases: Leases;
  /** Test seams: faster polling against fakes. */
  marketplace?: Partial<Pick<MarketplaceDeps, 'waitTimeoutMs' | 'pollIntervalMs' | 'costUpdateIntervalMs'>>;
  agents?: AgentRegistry;
  /** Serves recorded clusters to jobs that name a `snapshot`. */
  snapshots?: SnapshotLeases;
  /** The suites a `suite` job runs. */
  suites?: SuiteSource;
};

export function createAgents(deps: Pick<WorkflowDeps, 'config' | 'settings' | 'log' | 'env'>): AgentRegistry {
  const registry = createAgentRegistry({
    selfCommand: selfCommand(),
    drivers: deps.settings.read().drivers ?? {},
    // In the desktop app process.execPath is the Electron binary, and the packaged app has the
    // runAsNode fuse off: it cannot run cli.js as Node. Its bundled holmes/k8sgpt drivers run in
    // this process instead (they only spawn the holmes/k8sgpt CLIs); headless, they stay children.
    bundledTransport: process.versions.electron ? 'in-process' : 'driver',
    env: deps.env,
    timeoutMs: deps.config.driverTimeoutMs,
  });
  for (const warning of registry.warnings) deps.log.warn('agent driver ignored', { warning });
  return registry;
}

/** One handler per job kind, composed from the providers. */
export function createWorkflows(deps: WorkflowDeps): AnyJobHandler[] {
  const agents = deps.agents ?? createAgents(deps);
  const marketplace: MarketplaceDeps = {
    dataDir: deps.config.dataDir,
    leases: deps.leases,
    access: deps.providers.marketplaceAccess,
    catalog: deps.providers.catalogIndex,
    logError: (message, fields) => deps.log.error(message, fields),
    // Read when a job rents, so a changed setting applies to the next job.
    maxCostDefault: () => deps.settings.appSettings().default_max_cost_usd,
    ...(deps.marketplace?.waitTimeoutMs !== undefined ? { waitTimeoutMs: deps.marketplace.waitTimeoutMs } : {}),
    ...(deps.marketplace?.pollIntervalMs !== undefined ? { pollIntervalMs: deps.marketplace.pollIntervalMs } : {}),
    ...(deps.marketplace?.costUpdateIntervalMs !== undefined ? { costUpdateIntervalMs: deps.marketplace.costUpdateIntervalMs } : {}),
  };
  const agentDeps = { agents, env: deps.env, snapshots: deps.snapshots };
  const workflows: AnyJobHandler[] = [llmInstanceWorkflow(marketplace), agenticAgentWorkflow(agentDeps), benchmarkWorkflow({ ...agentDeps, ...marketplace }), servingBenchmarkWorkflow(marketplace)];
  if (deps.suites) workflows.push(suiteWorkflow({ ...agentDeps, ...marketplace, suites: deps.suites }));
  return workflows;
}
