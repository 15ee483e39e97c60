import { useSyncExternalStore } from 'react';

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

/** Milliseconds since the epoch, updated every second while anything is mounted that reads it. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}
