import { MarketplaceError } from './errors';
import { MARKETPLACE_EVENTS, errorMessage, timedStep, type MarketplaceEventSink } from './events';
import { isGone } from './instance-status';
import { backoffDelay, sleep } from './sleep';
import type { VastApi } from './vast-client';

/** Destroying an instance and confirming it is gone (the end of all billing). */

export type ReleaseOptions = {
  client: VastApi;
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
  /** A read-back confirmed it is gone (`instances: null`, 404, or destroyed status). */
  verified: boolean;
  message: string;
  attempts: number;
};

/**
 * Destroys the instance and reads it back until it is gone, re-issuing the destroy while it is
 * still there. Never throws: the outcome is in the result (and the `marketplace.instance.destroy`
 * event), so a teardown problem can be reported without hiding a job's answer.
 */
export function releaseInstance(opts: ReleaseOptions): Promise<ReleaseResult> {
  return timedStep(opts.onEvent, MARKETPLACE_EVENTS.instanceDestroy, { instance_id: opts.instanceId }, () => destroyAndVerify(opts), (result) => ({
    message: result.message,
    labels: { released: result.released, verified: result.verified, attempts: result.attempts },
    ...(result.verified ? {} : { error_type: result.released ? 'unverified' : 'destroy_failed' }),
  }));
}

async function destroyAndVerify(opts: ReleaseOptions): Promise<ReleaseResult> {
  const id = opts.instanceId;
  const rounds = Math.max(1, opts.attempts ?? 4);
  const delay = { initialMs: opts.retryDelayMs ?? 1_000, factor: 2, maxMs: opts.maxRetryDelayMs ?? 8_000 };
  let released = false;
  let alreadyGone = false;
  let problem = '';
  /** The last refusal of the destroy itself: the cause to report, which a later read-back must not hide. */
  let destroyProblem = '';
  let attempt = 1;
  for (; attempt <= rounds; attempt++) {
    try {
      await opts.client.destroyInstance(id, { signal: opts.signal });
      released = true;
    } catch (err) {
      if (err instanceof MarketplaceError && err.status === 404) {
        released = true;
        if (attempt === 1) alreadyGone = true;
      } else {
        problem = errorMessage(err);
        destroyProblem = problem;
        if (opts.signal?.aborted) break;
        // A rejected key will not fix itself between rounds.
        if (err instanceof MarketplaceError && err.code === 'auth') break;
      }
    }
    try {
      const instance = await opts.client.showInstance(id, { signal: opts.signal });
      if (isGone(instance)) return gone(id, attempt, alreadyGone);
      problem = `instance still reads as ${instance?.actual_status ?? 'scheduling'} (intended ${instance?.intended_status ?? '?'})`;
    } catch (err) {
      if (err instanceof MarketplaceError && err.status === 404) return gone(id, attempt, alreadyGone);
      problem = `could not read it back: ${errorMessage(err)}`;
      if (opts.signal?.aborted) break;
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
  return released
    ? { released, verified: false, attempts, message: `Destroy of instance ${id} was accepted but not confirmed: ${problem}${aborted}. Check the Vast.ai console.` }
    : {
        released,
        verified: false,
        attempts,
        message: `Could not destroy instance ${id}: ${destroyProblem && destroyProblem !== problem ? `${destroyProblem}; ${problem}` : problem}${aborted}. It may still be billing: destroy it in the Vast.ai console.`,
      };
}

function gone(id: number, attempts: number, alreadyGone: boolean): ReleaseResult {
  const message = alreadyGone ? `Instance ${id} was already gone` : `Instance ${id} destroyed and confirmed gone`;
  return { released: true, verified: true, attempts, message };
}
