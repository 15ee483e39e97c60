/**
 * Statistics of pass/fail counts (design §12b): a Wilson score interval says how far an accuracy
 * measured on n answers can be trusted (8 of 10 is [0.49, 0.94] at 95%). Pure.
 */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** The 95% Wilson score interval of `passed` successes in `total` trials, rounded to 4 digits; [0, 1] with no trials. */
export function wilsonInterval(passed: number, total: number, z = Z95): [number, number] {
  if (total <= 0) return [0, 1];
  const p = passed / total;
  const z2 = z * z;
  const centre = (p + z2 / (2 * total)) / (1 + z2 / total);
  const half = (z / (1 + z2 / total)) * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total));
  const round = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 10_000) / 10_000;
  return [round(centre - half), round(centre + half)];
}

/** Whether two intervals share any value (their difference is then not significant at that level). */
export function intervalsOverlap(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] <= b[1] && b[0] <= a[1];
}
