/**
 * Many runs read as groups (model × GPU, and engine for serving runs): each figure's mean, spread
 * (sample standard deviation) and count, and which group is clearly best in a column — only where
 * its mean beats the next best by more than either one's spread. Pure, so it is unit-tested.
 */

export type Spread = { mean: number; sd: number; n: number };

/** Mean, sample standard deviation (0 for one value) and count of the values present; null when none is. */
export function spreadOf(values: readonly (number | null | undefined)[]): Spread | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (xs.length === 0) return null;
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd, n: xs.length };
}

export type Group<R> = { key: string; label: string; runs: R[] };

/** Runs grouped by `keyOf` (first seen first), each group named by `labelOf` of its first run. */
export function groupBy<R>(rows: readonly R[], keyOf: (r: R) => string, labelOf: (r: R) => string): Group<R>[] {
  const groups = new Map<string, Group<R>>();
  for (const r of rows) {
    const key = keyOf(r);
    const g = groups.get(key);
    if (g) g.runs.push(r);
    else groups.set(key, { key, label: labelOf(r), runs: [r] });
  }
  return [...groups.values()];
}

/**
 * The key of the group clearly best on a figure: the best mean, ahead of the runner-up by more
 * than the larger of their spreads. Null when the lead is within the noise, or fewer than two
 * groups have the figure.
 */
export function clearlyBest(spreads: readonly { key: string; spread: Spread | null }[], lowerIsBetter: boolean): string | null {
  const present = spreads.filter((s): s is { key: string; spread: Spread } => s.spread !== null);
  if (present.length < 2) return null;
  const ranked = present.slice().sort((a, b) => (lowerIsBetter ? a.spread.mean - b.spread.mean : b.spread.mean - a.spread.mean));
  const [best, next] = ranked;
  if (!best || !next) return null;
  const gap = Math.abs(best.spread.mean - next.spread.mean);
  return gap > Math.max(best.spread.sd, next.spread.sd) && gap > 0 ? best.key : null;
}
