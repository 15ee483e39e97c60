/**
 * Seeded randomness for the serving benchmark: the same request and seed give the same prompts and
 * the same arrival schedule, so two runs differ only by what they measure.
 */

/** mulberry32: a small, fast 32-bit generator; uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * A gamma(shape, scale) draw, Marsaglia and Tsang's method (for shape < 1, boosted by U^(1/shape)).
 * Gamma gaps with shape 1 are exponential: Poisson arrivals, as vLLM's `--burstiness 1`.
 */
export function gamma(random: () => number, shape: number, scale: number): number {
  if (shape < 1) return gamma(random, shape + 1, scale) * random() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}

/** An integer drawn uniformly from [round(n·(1 − r)), round(n·(1 + r))], at least 1: vLLM's random dataset's lengths. */
export function lengthAround(random: () => number, n: number, rangeRatio: number): number {
  const low = Math.max(1, Math.round(n * (1 - rangeRatio)));
  const high = Math.max(low, Math.round(n * (1 + rangeRatio)));
  return low + Math.floor(random() * (high - low + 1));
}
