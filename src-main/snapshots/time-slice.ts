/**
 * Long work on the main thread in slices: a 60 MiB import, a 1.2M-object canonicalisation or a
 * content hash hands the event loop back every few milliseconds, so /healthz, other tenants'
 * requests and SIGTERM are answered while it runs (issue 34 item 3).
 *
 * The work is written once, as a generator that `yield`s at safe points (every few hundred
 * items); runSliced drives it with pauses, runAtOnce without (small documents, tests).
 */

/** Work that yields at safe points and returns T. */
export type SlicedWork<T> = Generator<void, T, void>;

/** Milliseconds of work between two turns of the event loop. */
export const SLICE_MS = 8;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `work`, letting the event loop run whenever a slice of SLICE_MS has been used. */
export async function runSliced<T>(work: SlicedWork<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

/** Runs `work` to the end without pausing. */
export function runAtOnce<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** A pause point for async loops: `await slicer.pause()` costs nothing until the slice is used. */
export class Slicer {
  private sliceStart = performance.now();
  constructor(private readonly sliceMs = SLICE_MS) {}

  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.sliceStart = performance.now();
  }
}
