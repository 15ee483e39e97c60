import type { MarketplaceInstance } from './vast-wire';
import { MarketplaceError, MarketplaceProvisioningError, abortError, isAuthError, isGoneAnswer } from './errors';
import { MARKETPLACE_EVENTS, emit, errorMessage, timedStep, type MarketplaceEventSink } from './events';
import { classifyInstance, endpointUrl, type InstancePhase } from './instance-status';
import { backoffDelay, sleep } from './sleep';
import { OLLAMA_CONTAINER_PORT } from './template';
import type { VastApi } from './vast-client';

/** Waiting for a rented instance to run with the Ollama port mapped. */

export type WaitForRunningOptions = {
  client: VastApi;
  instanceId: number;
  /** The OPEN_BUTTON_TOKEN; null or omitted when the template turns proxy auth off. */
  authToken?: string | null;
  https?: boolean;
  containerPort?: number;
  /** Overall bound (default 10 min). */
  timeoutMs?: number;
  /**
   * `exited` or `unknown` (without an "Error" message) this soon after the create is a host still
   * settling, as the official CLI reads it: waited on, not a failure (default 5 min).
   */
  bootWindowMs?: number;
  /** First poll interval (default 3 s), growing by `backoffFactor` (1.5) up to `maxPollIntervalMs` (15 s). */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  backoffFactor?: number;
  signal?: AbortSignal;
  onEvent?: MarketplaceEventSink;
};

export type RunningInstance = {
  instanceId: number;
  /** `http://{public_ipaddr}:{HostPort of 11434/tcp}` */
  backendUrl: string;
  /** Headers for every Ollama call: `Authorization: Bearer <token>` through Vast's Caddy proxy. */
  headers: Record<string, string>;
  publicIp: string;
  hostPort: number;
  /** The proxy uses a self-signed certificate (template ENABLE_HTTPS). */
  insecureTls: boolean;
  instance: MarketplaceInstance;
  polls: number;
  waitedMs: number;
};

/**
 * Consecutive failed reads tolerated while waiting (the client has already retried each). Reads the
 * marketplace refused for pacing (429), or that timed out or met a 5xx, are not failures of the
 * machine: they are waited out until the overall bound, never a reason to release it.
 */
const MAX_POLL_FAILURES = 3;
const TRANSIENT_READS = new Set(['rate_limited', 'timeout', 'network', 'upstream_unavailable']);
/** Statuses a host may show while it settles right after the create. */
const BOOT_HICCUPS = new Set(['exited', 'unknown']);
/** `instances: null` right after creation may only mean "not visible yet". */
const MAX_UNSEEN_POLLS = 3;

/**
 * Polls the instance until it runs with the Ollama port mapped. Ends early with
 * MarketplaceProvisioningError: `instance_failed` (offline; exited/unknown past the boot window; a
 * status_msg with "Error"), `instance_gone`, `wait_timeout`; an abort rejects with code `aborted`.
 * Reads refused for pacing or lost to a timeout are waited out. It does not destroy the instance:
 * the caller releases it.
 */
export async function waitForRunning(opts: WaitForRunningOptions): Promise<RunningInstance> {
  const port = opts.containerPort ?? OLLAMA_CONTAINER_PORT;
  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
  const labels = { instance_id: opts.instanceId, timeout_ms: timeoutMs };
  return timedStep(
    opts.onEvent,
    MARKETPLACE_EVENTS.waitRunning,
    labels,
    () => pollUntilRunning(opts, port, timeoutMs),
    (r) => ({ message: `instance ${r.instanceId} running at ${r.backendUrl}`, labels: { backend_url: r.backendUrl, polls: r.polls } }),
  );
}

async function pollUntilRunning(opts: WaitForRunningOptions, port: number, timeoutMs: number): Promise<RunningInstance> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const delay = { initialMs: opts.pollIntervalMs ?? 3_000, factor: opts.backoffFactor ?? 1.5, maxMs: opts.maxPollIntervalMs ?? 15_000 };
  const bootWindowMs = opts.bootWindowMs ?? 5 * 60_000;
  let polls = 0;
  let failures = 0;
  let seen = false;
  let lastDetail = 'no answer yet';
  let lastStatus: string | null = null;
  for (;;) {
    if (opts.signal?.aborted) throw abortError(null, opts.signal.reason);
    polls++;
    let phase: InstancePhase;
    let instance: MarketplaceInstance | null = null;
    try {
      instance = await opts.client.showInstance(opts.instanceId, { signal: opts.signal });
      phase = classifyInstance(instance, port);
      failures = 0;
    } catch (err) {
      if (opts.signal?.aborted || (err instanceof MarketplaceError && err.code === 'aborted')) throw err;
      // A 404 whose body says auth_error is a refused key, not a vanished machine: read the code, not the status.
      if (isAuthError(err)) throw err;
      if (isGoneAnswer(err)) {
        phase = { kind: 'gone', detail: 'the marketplace answers 404 for this instance' };
      } else {
        const transient = err instanceof MarketplaceError && TRANSIENT_READS.has(err.code);
        if (!transient) failures++;
        lastDetail = errorMessage(err);
        if (failures >= MAX_POLL_FAILURES) throw err;
        phase = { kind: 'pending', status: lastStatus ?? 'unknown', detail: `read failed: ${lastDetail}` };
      }
    }
    // The official CLI waits out `exited`/`unknown` right after the create; so do we, for the boot window.
    if (phase.kind === 'failed' && BOOT_HICCUPS.has(phase.status) && !(instance?.status_msg ?? '').includes('Error') && Date.now() - started < bootWindowMs) {
      phase = { kind: 'pending', status: phase.status, detail: `${phase.detail} (waited on: the host may still be settling after the create)` };
    }

    if (phase.kind === 'ready' && instance) {
      const headers: Record<string, string> = opts.authToken ? { Authorization: `Bearer ${opts.authToken}` } : {};
      return {
        instanceId: opts.instanceId,
        backendUrl: endpointUrl(phase.host, phase.hostPort, opts.https),
        headers,
        publicIp: phase.host,
        hostPort: phase.hostPort,
        insecureTls: opts.https === true,
        instance,
        polls,
        waitedMs: Date.now() - started,
      };
    }
    if (phase.kind === 'failed') {
      throw new MarketplaceProvisioningError(`Instance ${opts.instanceId} will not start: ${phase.detail}`, 'instance_failed', opts.instanceId);
    }
    if (phase.kind === 'gone') {
      if (seen || polls >= MAX_UNSEEN_POLLS) {
        throw new MarketplaceProvisioningError(`Instance ${opts.instanceId} disappeared while starting: ${phase.detail}`, 'instance_gone', opts.instanceId);
      }
      lastDetail = phase.detail;
    } else if (phase.kind === 'pending') {
      if (instance) seen = true;
      lastDetail = phase.detail;
      if (phase.status !== lastStatus) {
        emit(opts.onEvent, {
          event: MARKETPLACE_EVENTS.waitRunning,
          status: 'info',
          message: phase.detail,
          labels: { instance_id: opts.instanceId, actual_status: phase.status, polls },
        });
        lastStatus = phase.status;
      }
    }

    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new MarketplaceProvisioningError(
        `Instance ${opts.instanceId} was not running with port ${port} mapped within ${+(timeoutMs / 1000).toFixed(2)} s (last: ${lastDetail})`,
        'wait_timeout',
        opts.instanceId,
      );
    }
    await sleep(Math.min(remaining, backoffDelay(polls, delay)), opts.signal);
  }
}
