/**
 * Sorting a large list by a string key in slices (a million objects sort in about a second: too
 * long to hold the event loop). A list already in order, as every export is, is only checked.
 * Stable: items of equal keys keep their order, and each later one is reported as a duplicate of
 * the one before it, by their indexes in the list as given.
 */

const STEP = 4_096;

export function* sortByKey<T>(items: readonly T[], keyOf: (item: T) => string): Generator<void, { sorted: T[]; duplicates: [number, number][] }, void> {
  const n = items.length;
  const keys = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    keys[i] = keyOf(items[i] as T);
    if (i % STEP === 0) yield;
  }
  let inOrder = true;
  for (let i = 1; i < n && inOrder; i++) inOrder = (keys[i - 1] as string) <= (keys[i] as string);
  let order: Uint32Array;
  if (inOrder) {
    order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
  } else {
    order = yield* mergeSort(keys);
  }
  const sorted = new Array<T>(n);
  const duplicates: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const at = order[i] as number;
    sorted[i] = items[at] as T;
    if (i > 0 && keys[at] === keys[order[i - 1] as number]) duplicates.push([order[i - 1] as number, at]);
    if (i % STEP === 0) yield;
  }
  return { sorted, duplicates };
}

/** Bottom-up merge sort of the indexes of `keys` (stable), pausing every STEP moves. */
function* mergeSort(keys: readonly string[]): Generator<void, Uint32Array, void> {
  const n = keys.length;
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  let moves = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const mid = Math.min(left + width, n);
      const right = Math.min(left + 2 * width, n);
      let a = left;
      let b = mid;
      for (let k = left; k < right; k++) {
        // `<=` takes the left run first on equal keys: the sort is stable.
        if (a < mid && (b >= right || (keys[from[a] as number] as string) <= (keys[from[b] as number] as string))) to[k] = from[a++] as number;
        else to[k] = from[b++] as number;
        if (++moves % STEP === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
