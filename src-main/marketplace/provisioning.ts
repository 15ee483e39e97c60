/**
 * Marketplace provisioning, the pieces the lease (src-main/lease) puts together: renting the
 * cheapest fitting offer, waiting until it runs, releasing it with a confirmation. Each step
 * reports through `onEvent` (events.ts) and stops promptly when its `signal` aborts.
 */

export { MARKETPLACE_EVENTS, type MarketplaceEvent, type MarketplaceEventName, type MarketplaceEventSink } from './events';
export { findLabelledInstances, rentCheapestFit, type RentCheapestFitOptions, type RentedInstance, type RentRequest } from './rent';
export { jobLabel, labelsOfJob, legacyJobLabel, LABEL_PREFIX, parseLabel, type ParsedLabel } from './labels';
export { waitForRunning, type RunningInstance, type WaitForRunningOptions } from './wait-running';
export { releaseInstance, type ReleaseOptions, type ReleaseResult } from './release';
