import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * V8's optimize-for-size mode keeps the heap small: a small young generation and old-generation
 * limits close to the live data. That is what returns memory after a burst of jobs (after 10k jobs
 * V8's defaults kept ~470 MB resident, optimize-for-size ~145 MB). Its price grows with the live
 * data: with 1,000 benchmarks in flight (~100 MB live) V8 collected ~1,250 times instead of ~35 and
 * the CPU per job was two to three times as high. So the mode follows the live heap: on while it is
 * small (cheap to keep small), off while it is large (keeping it small would collect without end),
 * on again once the heap has come back down. Heap-size flags would bound memory more cheaply, but
 * V8 takes them only on the command line, which the desktop app's main process does not control.
 */
export type MemoryMode = 'size' | 'speed';

/** A full collection that left at least this much live: keeping the heap small now costs more than it saves. */
export const SPEED_ABOVE_LIVE_MB = 64;
/** Heap in use (garbage included) at or below this: small again, save memory. */
export const SIZE_AT_OR_BELOW_USED_MB = 48;

export type HeapSample = {
  /** Heap in use right after a full (mark-compact) collection, i.e. about the live data. */
  liveAfterFullGcMB?: number;
  /** Heap in use now, garbage included. */
  usedMB: number;
};

/** The pure rule, with hysteresis so the mode does not flap around one size. */
export function nextMemoryMode(current: MemoryMode, sample: HeapSample): MemoryMode {
  if (current === 'size') return sample.liveAfterFullGcMB !== undefined && sample.liveAfterFullGcMB >= SPEED_ABOVE_LIVE_MB ? 'speed' : 'size';
  return sample.usedMB <= SIZE_AT_OR_BELOW_USED_MB ? 'size' : 'speed';
}

/** Sets the mode now (the bench's comparison runs hold it); stop an adaptive follower first. */
export function setMemoryMode(mode: MemoryMode): void {
  v8.setFlagsFromString(mode === 'size' ? '--optimize-for-size' : '--no-optimize-for-size');
}

const MB = 1024 * 1024;
const usedMB = () => v8.getHeapStatistics().used_heap_size / MB;

/**
 * Starts following the live heap (see above) in this process; returns a function that stops it
 * and leaves optimize-for-size on. The checks are a GC observer and a 1 s timer that does not keep
 * the process alive.
 */
export function startAdaptiveMemoryMode(onChange?: (mode: MemoryMode) => void): () => void {
  let mode: MemoryMode = 'size';
  setMemoryMode(mode);
  const consider = (sample: HeapSample) => {
    const next = nextMemoryMode(mode, sample);
    if (next === mode) return;
    mode = next;
    setMemoryMode(mode);
    onChange?.(mode);
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // Node sets `detail.kind` on gc entries; the DOM typing of PerformanceEntry does not know it.
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== perfConstants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const used = usedMB();
      consider({ liveAfterFullGcMB: used, usedMB: used });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => consider({ usedMB: usedMB() }), 1000).unref();
  return () => {
    observer.disconnect();
    clearInterval(timer);
    mode = 'size';
    setMemoryMode(mode);
  };
}
