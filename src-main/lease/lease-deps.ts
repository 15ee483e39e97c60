import type { EventInput } from '../events/timed';
import type { MarketplaceAccess } from '../marketplace/access';
import type { HeldKeys } from '../marketplace/held-keys';
import type { Ledger } from './ledger';
import type { LeaseRecord } from './lease-record';

/** What the lease stands on, wired once by the composition root (tests give small figures). */

export type LeaseLogger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

export type LeaseTuning = {
  /** Bound on rent → running (default 10 min). */
  waitTimeoutMs?: number;
  /** First poll interval while waiting for running (default 3 s). */
  pollIntervalMs?: number;
  /** exited/unknown this soon after the create is waited on (default 5 min). */
  bootWindowMs?: number;
  /** Pause between destroy/verify rounds of one release (default 1 s, doubling). */
  releaseRetryDelayMs?: number;
  /** A release that did not confirm is tried again after this (default 15 s), doubling up to maxReleaseRetryMs. */
  releaseRetryMs?: number;
  maxReleaseRetryMs?: number;
  /** After a create whose answer was lost: quick label lookups before the rent gives up (default 3, 2 s apart). */
  quickLookups?: number;
  quickLookupDelayMs?: number;
  /** Then the label is looked up for at least this long (default 5 min), first `huntDelayMs` apart (default 10 s), doubling up to 60 s. */
  huntMs?: number;
  huntDelayMs?: number;
  /** How often a kept machine's limit is checked (at most every 5 s, the default). */
  spendCheckMs?: number;
};

export type LeaseDeps = {
  ledger: Ledger;
  /** The key in use, and a client for any other key (the one a lease rented with). */
  access: MarketplaceAccess;
  /** The key each lease rented with, kept (0600) until its machine is confirmed gone. */
  heldKeys: HeldKeys;
  /** This data dir's install id: labels are `benchdesk:<install_id>:<lease_id>`. */
  installId: string;
  /** Where the proxy token of a rented machine is kept (`secrets/instance-<id>.token`) until its release. */
  dataDir: string;
  log: LeaseLogger;
  tuning?: LeaseTuning;
  /**
   * Tells a lease's owner what happened to its machine when the owner is not there to hear it: a
   * kept machine released at its limit, a lost rent found, a release retried (the job's event log,
   * the sweep's feed). Must not throw.
   */
  notify?: (lease: LeaseRecord, event: EventInput) => void;
  /** After a release confirmed or given up for now: the owner's record follows (a job's resources). */
  onReleaseSettled?: (lease: LeaseRecord) => Promise<void>;
  /** The default limit of a kept machine whose lease has none (the max_cost_usd_default setting). */
  keptLimitDefault?: () => number | null;
};
