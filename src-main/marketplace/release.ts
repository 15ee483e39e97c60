import { isAuthError, isGoneAnswer } from './errors';
import { MARKETPLACE_EVENTS, errorMessage, timedStep, type MarketplaceEventSink } from './events';
import { isGone } from './instance-status';
import { backoffDelay, sleep } from './sleep';
import type { VastApi } from './vast-client';

/** Destroying an instance and confirming it is gone (the end of all billing). */

export type ReleaseOptions = {
  /** The client of the key that rented (or last saw) the instance. */
  client: VastApi;
  /**
   * Clients of other keys, tried in turn when the key is refused (changed or revoked since the rent).
   * One is used only if it can see the instance: a key of another account answers "not found" for a
   * machine that is still billing.
   */
  fallbackClients?: readonly VastApi[];
  instanceId: number;
  /** Use a teardown signal, not the job's cancel signal: release must run after a cancel. */
  signal?: AbortSignal;
  onEvent?: MarketplaceEventSink;
  /** Destroy-and-verify rounds (default 4). */
  attempts?: number;
  /** Pause between rounds, doubling (default 1 s, at most 8 s). */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export type ReleaseResult = {
  /** Vast accepted the destroy (or the instance was already gone). */
  released: boolean;
  /** A read-back confirmed it is gone (`instances: null`, a 404 that is not an auth failure, or destroyed status). */
  verified: boolean;
  message: string;
  attempts: number;
  /** It ended because every key was refused (401/403, or a 404 saying `auth_error`): never read as "gone". */
  authFailed?: boolean;
};

/**
 * Destroys the instance and reads it back until it is gone, re-issuing the destroy while it is
 * still there. A refused key is an authentication failure, never "gone": the next key that can see
 * the instance takes over, and without one the release fails saying why. Never throws: the outcome
 * is in the result (and the `marketplace.instance.destroy` event), so a teardown problem can be
 * reported without hiding a job's answer.
 */
export function releaseInstance(opts: ReleaseOptions): Promise<ReleaseResult> {
  return timedStep(opts.onEvent, MARKETPLACE_EVENTS.instanceDestroy, { instance_id: opts.instanceId }, () => destroyAndVerify(opts), (result) => ({
    message: result.message,
    labels: { released: result.released, verified: result.verified, attempts: result.attempts },
    ...(result.verified ? {} : { error_type: result.authFailed ? 'auth' : result.released ? 'unverified' : 'destroy_failed' }),
  }));
}

async function destroyAndVerify(opts: ReleaseOptions): Promise<ReleaseResult> {
  const id = opts.instanceId;
  const rounds = Math.max(1, opts.attempts ?? 4);
  const delay = { initialMs: opts.retryDelayMs ?? 1_000, factor: 2, maxMs: opts.maxRetryDelayMs ?? 8_000 };
  const candidates = [opts.client, ...(opts.fallbackClients ?? [])];
  let index = 0;
  let client = opts.client;
  let switched = false;
  let released = false;
  let alreadyGone = false;
  let authFailed = false;
  let problem = '';
  /** The last refusal of the destroy itself: the cause to report, which a later read-back must not hide. */
  let destroyProblem = '';

  /** After a refused key: the next key that can see the instance takes over; false when none is left. */
  const nextKey = async (): Promise<boolean> => {
    while (++index < candidates.length) {
      const candidate = candidates[index] as VastApi;
      try {
        const instance = await candidate.showInstance(id, { signal: opts.signal });
        if (instance && !isGone(instance)) {
          client = candidate;
          switched = true;
          return true;
        }
      } catch {
        // This key cannot see it either.
      }
    }
    return false;
  };

  let attempt = 1;
  for (; attempt <= rounds; attempt++) {
    try {
      await client.destroyInstance(id, { signal: opts.signal });
      released = true;
    } catch (err) {
      if (isGoneAnswer(err)) {
        released = true;
        if (attempt === 1) alreadyGone = true;
      } else {
        problem = errorMessage(err);
        destroyProblem = problem;
        if (opts.signal?.aborted) break;
        // A refused key will not fix itself between rounds: another key, or stop.
        if (isAuthError(err)) {
          if (await nextKey()) {
            attempt--;
            continue;
          }
          authFailed = true;
          break;
        }
      }
    }
    try {
      const instance = await client.showInstance(id, { signal: opts.signal });
      if (isGone(instance)) return gone(id, attempt, alreadyGone, switched);
      problem = `instance still reads as ${instance?.actual_status ?? 'scheduling'} (intended ${instance?.intended_status ?? '?'})`;
    } catch (err) {
      if (isGoneAnswer(err)) return gone(id, attempt, alreadyGone, switched);
      problem = `could not read it back: ${errorMessage(err)}`;
      if (opts.signal?.aborted) break;
      if (isAuthError(err)) {
        if (await nextKey()) continue;
        authFailed = true;
        break;
      }
    }
    if (attempt < rounds) {
      try {
        await sleep(backoffDelay(attempt, delay), opts.signal);
      } catch {
        break;
      }
    }
  }
  const attempts = Math.min(attempt, rounds);
  const aborted = opts.signal?.aborted ? ' (release was aborted)' : '';
  if (authFailed) {
    const cause = destroyProblem || problem;
    return {
      released: false,
      verified: false,
      attempts,
      authFailed,
      message: `Could not destroy instance ${id}: ${cause}${aborted}. It may still be billing: set a working marketplace key and release it again, or destroy it in the Vast.ai console.`,
    };
  }
  return released
    ? { released, verified: false, attempts, message: `Destroy of instance ${id} was accepted but not confirmed: ${problem}${aborted}. Check the Vast.ai console.` }
    : {
        released,
        verified: false,
        attempts,
        message: `Could not destroy instance ${id}: ${destroyProblem && destroyProblem !== problem ? `${destroyProblem}; ${problem}` : problem}${aborted}. It may still be billing: destroy it in the Vast.ai console.`,
      };
}

function gone(id: number, attempts: number, alreadyGone: boolean, switched: boolean): ReleaseResult {
  const base = alreadyGone ? `Instance ${id} was already gone` : `Instance ${id} destroyed and confirmed gone`;
  const message = switched ? `${base} (with another marketplace key: the one it was rented with was refused)` : base;
  return { released: true, verified: true, attempts, message };
}
