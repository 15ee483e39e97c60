import { useSyncExternalStore } from 'react';
import { useConnection } from '../state/connection';

/**
 * One shared clock for relative times and live running costs: every subscriber re-renders on the
 * same tick, so a list of 10,000 "5 min ago" cells costs one timer, not 10,000.
 */
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;
const TICK_MS = 1000;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/**
 * Milliseconds since the epoch, updated every second while anything is mounted that reads it.
 * While the server cannot be heard it stays at the moment the link went down: running costs and
 * elapsed times freeze instead of counting on figures nobody is confirming.
 */
export function useNow(): number {
  const frozenAt = useConnection((s) => s.downSince);
  const ticking = useSyncExternalStore(subscribe, () => now);
  return frozenAt ?? ticking;
}
