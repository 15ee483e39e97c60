import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { BenchdeskClient } from '../../shared';
import type { HttpLimits } from '../api/http-limits';
import type { EventStreamLimits } from '../api/sse';
import type { Authenticator } from '../api/auth';
import type { OperationHandlers } from '../adapter';
import type { JobEngine } from '../engine/engine';
import type { AnyJobHandler, Logger } from '../engine/types';
import type { JobStore } from '../store/types';
import type { Config } from '../app/config';
import type { MarketplaceKeyHolder, PersistMarketplaceKey } from '../app/marketplace-key';
import type { BenchdeskService } from '../app/service-types';
import type { SettingsStore } from '../app/settings';
import type { InstanceService } from '../app/instances';
import type { SnapshotService } from '../app/snapshots';
import type { SuiteService } from '../app/suites';
import type { LeaseTuning } from '../lease/lease-deps';
import type { Leases } from '../lease/leases';
import type { SweepEngine } from '../sweeps/sweep-engine';
import type { MarketplaceClientTuning, Providers } from './providers';
import type { SweepTuning } from './sweeps';

/** What the composition root takes (mostly test seams) and what it gives. */

export type BenchdeskOptions = {
  env?: NodeJS.ProcessEnv;
  /** Overrides of the environment's settings. */
  dataDir?: string;
  host?: string;
  port?: number;
  /** The desktop app: always configures auth with its own token (design §3). */
  electron?: boolean;
  /** The app's own token without Electron (`npm start` falling back to the browser UI): as `electron`. */
  appToken?: boolean;
  /**
   * The desktop app's marketplace key: `key` = the stored one (decrypted; used before VAST_API_KEY),
   * `persist` = saves a new one (safeStorage). Settings changes apply without a restart.
   */
  appMarketplaceKey?: { key?: string | undefined; persist?: PersistMarketplaceKey };
  /** false = silent (tests); default: pino to stdout. */
  logger?: FastifyServerOptions['logger'] | false;
  /** Replace the workflows (tests register handlers that succeed, fail, hang…). */
  handlers?: readonly AnyJobHandler[];
  /** Faster marketplace polling against fakes (tests); `now` is the ledger's clock. */
  workflowTuning?: { waitTimeoutMs?: number; pollIntervalMs?: number; releaseRetryDelayMs?: number; costUpdateIntervalMs?: number; now?: () => number };
  /** The leases' retries, hunts and boot window (tests shorten them). */
  leaseTuning?: LeaseTuning;
  /** Orphan sweep cadence (tests shorten it; default BENCHDESK_ORPHAN_SWEEP_INTERVAL_S or 5 min). */
  instancesTuning?: { sweepIntervalMs?: number; releaseRetryDelayMs?: number };
  /** Marketplace client settings (timeouts, retries, the search limit); tests shorten them. */
  marketplaceClient?: MarketplaceClientTuning;
  /** Replace provider calls (tests). */
  providers?: Partial<Providers>;
  now?: () => Date;
  authNow?: () => number;
  uiDir?: string;
  sseHeartbeatMs?: number;
  /** Request/header timeouts and the per-IP connection cap of the HTTP API (tests shorten them). */
  httpLimits?: Partial<HttpLimits>;
  /** What an event stream may hold for a client that does not read (tests use small bounds). */
  streamLimits?: Partial<EventStreamLimits>;
  /** The snapshot recording's time bound and request timeout (tests shorten them). */
  snapshotTuning?: { deadlineMs?: number; requestTimeoutMs?: number };
  /** The sweep engine's cost cadence and clock, or replaced jobs/machines (tests). */
  sweepTuning?: SweepTuning;
};

export type Benchdesk = {
  config: Config;
  app: FastifyInstance;
  engine: JobEngine;
  store: JobStore;
  service: BenchdeskService;
  /** Rented marketplace machines: list, release, orphan sweep. */
  instances: InstanceService;
  /** Every rented machine's lease, and the ledger of what they cost. */
  leases: Leases;
  /** Recorded clusters: record, store, serve to jobs; the suites register who uses which here. */
  snapshots: SnapshotService;
  suites: SuiteService;
  /** Sweeps: models × GPUs, one rented machine per GPU. */
  sweeps: SweepEngine;
  /** Every operation, for every transport (HTTP routes, IPC, in-process clients). */
  handlers: OperationHandlers;
  /** The typed client over `handlers`, in this process, as `tenantId` (default: the app's tenant). */
  client(tenantId?: string): BenchdeskClient;
  settings: SettingsStore;
  /** The marketplace key in use; the desktop app sets or clears its own here, without a restart. */
  marketplaceKey: MarketplaceKeyHolder;
  /** This data dir's install id (in the labels of the machines it rents). */
  installId: string;
  auth: Authenticator;
  /** The tenant the desktop app acts as over IPC. */
  tenantId: string;
  /** The app's API token (plaintext, for Settings → show/copy); undefined headless unless `appToken`. */
  apiToken: string | undefined;
  log: Logger;
  close(): Promise<void>;
};

