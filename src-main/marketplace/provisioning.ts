import { MarketplaceError } from './errors';
import { errorMessage } from './events';
import { releaseInstance, type ReleaseResult } from './release';
import { rentCheapestFit, type RentCheapestFitOptions, type RentedInstance } from './rent';
import { waitForRunning, type RunningInstance, type WaitForRunningOptions } from './wait-running';

/**
 * Marketplace provisioning for the llm-instance and benchmark workflows: the entry point the
 * engine imports. Each step reports through `onEvent` (events.ts) and stops promptly when
 * `signal` aborts. The caller owns teardown (`releaseInstance`), except that `provisionLlmServer`
 * releases after a failed or aborted wait, and `rentCheapestFit` after a cancel that interrupted
 * the rent call.
 */

export { MARKETPLACE_EVENTS, type MarketplaceEvent, type MarketplaceEventName, type MarketplaceEventSink } from './events';
export { findLabelledInstances, rentCheapestFit, type RentCheapestFitOptions, type RentedInstance, type RentRequest } from './rent';
export { jobLabel, labelsOfJob, legacyJobLabel, LABEL_PREFIX, parseLabel, type ParsedLabel } from './labels';
export { waitForRunning, type RunningInstance, type WaitForRunningOptions } from './wait-running';
export { releaseInstance, type ReleaseOptions, type ReleaseResult } from './release';

export type ProvisionOptions = RentCheapestFitOptions & {
  /** Called as soon as the instance exists, before waiting: persist the id for crash recovery. */
  onRented?: (rented: RentedInstance) => void | Promise<void>;
  wait?: Pick<WaitForRunningOptions, 'timeoutMs' | 'pollIntervalMs' | 'maxPollIntervalMs' | 'backoffFactor'>;
  /** Bound on the release after a failed wait (default 2 min). */
  releaseTimeoutMs?: number;
};

export type ProvisionedLlmServer = { rented: RentedInstance; running: RunningInstance };

/**
 * rentCheapestFit + waitForRunning; when the wait fails or is aborted the instance is released
 * (with its own time bound, since the job's signal may be the reason) and the wait's error is
 * rethrown with the release outcome appended and attached as `release`.
 */
export async function provisionLlmServer(opts: ProvisionOptions): Promise<ProvisionedLlmServer> {
  const rented = await rentCheapestFit(opts);
  try {
    await opts.onRented?.(rented);
    const running = await waitForRunning({
      client: opts.client,
      instanceId: rented.instanceId,
      authToken: rented.access.authRequired ? rented.authToken : null,
      https: rented.access.https,
      ...opts.wait,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    });
    return { rented, running };
  } catch (err) {
    const release = await releaseInstance({
      client: opts.client,
      instanceId: rented.instanceId,
      signal: AbortSignal.timeout(opts.releaseTimeoutMs ?? 120_000),
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    });
    throw new ProvisioningFailedError(err, release, rented.instanceId);
  }
}

export class ProvisioningFailedError extends MarketplaceError {
  constructor(
    readonly original: unknown,
    readonly release: ReleaseResult,
    readonly instanceId: number,
  ) {
    super(`${errorMessage(original)}; ${release.message}`, original instanceof MarketplaceError ? original.code : 'instance_failed', null, null, { cause: original });
    this.name = 'ProvisioningFailedError';
  }
}
