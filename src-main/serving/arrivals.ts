import type { RequestRate } from '../../shared';
import { gamma, seededRandom } from './random';

/**
 * When each request of a rate level is due, in ms from the level's start (design §13b, as
 * `vllm bench serve --request-rate R --burstiness B`): gaps drawn from a gamma distribution of
 * shape B and mean 1/R (B = 1: Poisson arrivals; lower: burstier). The drawn schedule is then
 * scaled so that its requests, over the time they are started in, make exactly R per second
 * (n ÷ the last start): a run's achieved rate then differs from the asked one only by how late
 * the generator and the server were, not by the luck of the draw. `"inf"`: all at once.
 */
export function arrivalOffsets(count: number, rate: RequestRate, burstiness: number, seed: number): number[] {
  if (count <= 0) return [];
  if (rate === 'inf' || count === 1) return new Array<number>(count).fill(0);
  const random = seededRandom(seed ^ 0x5eed);
  const offsets = [0];
  let t = 0;
  for (let i = 1; i < count; i++) {
    t += gamma(random, burstiness, 1 / (rate * burstiness));
    offsets.push(t);
  }
  // n requests over the span from the first start to the last: span = n / R.
  const scale = t > 0 ? count / rate / t : 0;
  return offsets.map((x) => x * scale * 1000);
}

/** How many requests a rate level of `durationS` starts: R × duration (at least 1). */
export function requestsForDuration(rate: number, durationS: number): number {
  return Math.max(1, Math.round(rate * durationS));
}
