/**
 * A backend of known timing, shared by the fake Ollama and the fake OpenAI server (design §13,
 * §13b): `parallel` slots served in arrival order (a FIFO queue, as a real server batches), then
 * the first token F ms after the request arrived (or got its slot) and one every G ms after it.
 * Token i is due at start + F + i·G on performance.now(): a late timer writes every token already
 * due at once, so lateness never accumulates. Each first token's lateness against its schedule is
 * kept, so a benchmark can take the fake's own delays out of the generator's error.
 */
import { ClientGone, sleep } from './http-util';

export interface FakeServingTiming {
  /** F: ms from the start of a request to its first token. */
  firstTokenMs: number;
  /** G: ms between tokens. */
  tokenIntervalMs: number;
  /** Requests served at once (OLLAMA_NUM_PARALLEL, vLLM's batch); the rest wait for a slot, first come first served. Default: no limit. */
  parallel?: number;
  /** The model ends its answer after this many tokens (an early stop: EOS before the tokens asked), unless the request ignores EOS. */
  stopAfterTokens?: number;
}

export function createSlots() {
  let busy = 0;
  const waiters: (() => void)[] = [];
  return {
    /** Waits for a slot (FIFO) and returns its release. */
    async acquire(limit: number | undefined, signal: AbortSignal): Promise<() => void> {
      if (limit !== undefined && busy >= limit) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => {
            const at = waiters.indexOf(go);
            if (at >= 0) waiters.splice(at, 1);
            reject(new ClientGone());
          };
          const go = () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          };
          waiters.push(go);
          signal.addEventListener('abort', onAbort, { once: true });
        });
      }
      busy++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        busy--;
        waiters.shift()?.();
      };
    },
  };
}

/**
 * Writes `n` tokens on the schedule: `write(from, to)` gets the tokens due (indexes [from, to))
 * each time the timer fires. Returns when the last is written.
 */
export async function streamOnSchedule(options: { n: number; start: number; timing: FakeServingTiming; signal: AbortSignal; lateness: number[]; write: (from: number, to: number) => void }): Promise<void> {
  const { n, start, timing, signal, write } = options;
  const due = (i: number) => start + timing.firstTokenMs + i * timing.tokenIntervalMs;
  let i = 0;
  while (i < n) {
    const wait = due(i) - performance.now();
    if (wait > 0) await sleep(wait, signal);
    const t = performance.now();
    const from = i;
    while (i < n && due(i) <= t) i++;
    if (i > from) {
      if (from === 0) options.lateness.push(t - due(0));
      write(from, i);
    }
  }
}

/** How many tokens an answer has: what was asked, fewer when the model stops early (not ignoring EOS), at least min_tokens. */
export function answerTokens(asked: number, timing: FakeServingTiming, ignoreEos: boolean, minTokens = 0): number {
  if (ignoreEos || timing.stopAfterTokens === undefined) return asked;
  return Math.min(asked, Math.max(timing.stopAfterTokens, minTokens));
}
