/**
 * Time in a generated snapshot: every stamp is counted back from `recorded_at`, so a scenario
 * says "3 days ago" or "recorded minus 4m12s" and the lint's timeline rules hold by construction.
 */

const UNITS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/** '3d4h', '5m12s', '250ms', '1h' → milliseconds. */
export function duration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|d|h|m|s)/g;
  let total = 0;
  let matched = '';
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 0);
    matched += m[0];
  }
  if (matched !== text) throw new Error(`not a duration: ${text}`);
  return total;
}

export class Clock {
  readonly rec: number;
  constructor(readonly recordedAt: string) {
    this.rec = Date.parse(recordedAt);
    if (Number.isNaN(this.rec)) throw new Error(`bad recorded_at ${recordedAt}`);
  }

  /** The moment `text` before the recording (ms since the epoch). */
  ago(text: string): number {
    return this.rec - duration(text);
  }
}

/** RFC 3339 with whole seconds, as the API server writes object times. */
export function stamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** RFC 3339 with microseconds, as the scheduler's events (eventTime) carry. */
export function microStamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Log stamp styles of the programs the scenarios run. */
export const logStamp = {
  /** 2026-11-20T09:29:58.123Z (Spring, Node, most JSON loggers' text form) */
  iso: (ms: number) => new Date(ms).toISOString(),
  /** 2026-11-20 09:29:58.123 UTC (Postgres) */
  pg: (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC'),
  /** 2026-11-20 09:29:58,123 (Python logging) */
  py: (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('.', ',').replace('Z', ''),
  /** I1120 09:29:58.123456 (klog; the level letter is the caller's) */
  klog: (ms: number) => {
    const d = new Date(ms);
    return `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}${pad(ms % 1000, 3)}`;
  },
  /** [20/Nov/2026:09:29:58 +0000] (nginx access log) */
  clf: (ms: number) => {
    const d = new Date(ms);
    const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
    return `[${pad(d.getUTCDate())}/${mon}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000]`;
  },
  /** 1795167000.123 (zap's epoch seconds) */
  epoch: (ms: number) => (ms / 1000).toFixed(3),
};
