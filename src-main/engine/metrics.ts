import type { JobEvent, MetricsRow } from '../../shared';

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/**
 * Aggregates the `ok`/`error` outcome events (design §3: `started` and `info` are not outcomes)
 * by event name, ordered by name. Durations missing on an outcome count as 0 ms.
 */
export async function summarizeEvents(events: AsyncIterable<JobEvent> | Iterable<JobEvent>): Promise<MetricsRow[]> {
  const groups = new Map<string, { ok: number; error: number; durations: number[] }>();
  for await (const e of events) {
    if (e.status !== 'ok' && e.status !== 'error') continue;
    let g = groups.get(e.event);
    if (!g) {
      g = { ok: 0, error: 0, durations: [] };
      groups.set(e.event, g);
    }
    if (e.status === 'ok') g.ok += 1;
    else g.error += 1;
    g.durations.push(e.duration_ms ?? 0);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([event, g]) => {
      const sorted = g.durations.sort((a, b) => a - b);
      const sum = sorted.reduce((s, d) => s + d, 0);
      return {
        event,
        total: g.ok + g.error,
        ok: g.ok,
        error: g.error,
        avg_ms: round1(sum / sorted.length),
        min_ms: round1(sorted[0] ?? 0),
        max_ms: round1(sorted[sorted.length - 1] ?? 0),
        p95_ms: round1(percentile(sorted, 95)),
      };
    });
}
