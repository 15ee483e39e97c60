import type { BenchdeskService } from '../app/service-types';
import type { JobStore } from '../store/types';
import type { InstanceService } from '../app/instances';
import { choiceHandlers, type ChoiceHandlerDeps } from './handlers/choices';
import { coreHandlers } from './handlers/core';
import { instanceHandlers, withMarketplaceHealth } from './handlers/instances';
import { jobStatsHandlers } from './handlers/jobs-stats';
import { overviewHandlers, type OverviewHandlerDeps } from './handlers/overview';
import { settingsHandlers, type SettingsHandlerDeps } from './handlers/settings';
import { snapshotHandlers } from './handlers/snapshots';
import { suiteHandlers } from './handlers/suites';
import type { SuiteService } from '../app/suites';
import type { SnapshotService } from '../app/snapshots';
import { sweepHandlers } from './handlers/sweeps';
import type { SweepEngine } from '../sweeps/sweep-engine';
import { guardAppTenantOperations } from './app-tenant';
import type { OperationHandlers } from './types';

export type { OperationContext, OperationHandlers } from './types';
export { createInProcessClient } from './in-process-client';

export type HandlerDeps = {
  service: BenchdeskService;
  /** Read-only index queries (job counts) that need no service logic. */
  store: Pick<JobStore, 'countJobs'>;
  /** Rented marketplace machines: list, release, and the orphan sweep's health figures. */
  instances: InstanceService;
  /** Settings page: settings file, API token rotation, marketplace key status. */
  settings: SettingsHandlerDeps;
  /** Overview: the spend summary cache. */
  overview: OverviewHandlerDeps;
  /** Launch: the registered agents and the marketplace's templates. */
  choices: ChoiceHandlerDeps;
  /** Recorded clusters: record, list, export, import, delete. */
  snapshots: SnapshotService;
  /** Suites: list, show, create, delete, export, import. */
  suites: SuiteService;
  /** Sweeps: models × GPUs, one machine per GPU, ranked. */
  sweeps: SweepEngine;
};

/** Every operation's handler. Each domain contributes its operations from handlers/<domain>.ts; app-tenant operations are guarded. */
export function createOperationHandlers(deps: HandlerDeps): OperationHandlers {
  const core = coreHandlers(deps.service);
  return guardAppTenantOperations({
    ...core,
    ...jobStatsHandlers(deps.store),
    ...settingsHandlers(deps.settings),
    ...overviewHandlers(deps.overview),
    ...instanceHandlers(deps.instances),
    ...choiceHandlers(deps.choices),
    ...snapshotHandlers(deps.snapshots),
    ...suiteHandlers(deps.suites),
    ...sweepHandlers(deps.sweeps),
    getHealth: withMarketplaceHealth(core.getHealth, deps.instances),
  });
}
