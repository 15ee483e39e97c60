/**
 * Formatting for every number the app shows: money, durations, sizes, counts, relative times.
 * One place, so every page writes a figure the same way and never without its unit:
 *
 * - money: `$` with thousands separators; two decimals from $1 up ($1,234.50), two significant
 *   digits under $1 ($0.18, $0.0031); rates add `/h` ($0.18/h);
 * - memory and disk: always GB ("0.8 GB", "7.5 GB", "24 GB");
 * - GPUs: "1× RTX 3090";
 * - counts with a unit: the plural only when it is not 1 ("1 tool call", "3 tool calls").
 */

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const usd2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const DASH = '—';

function missing(n: number | null | undefined): n is null | undefined {
  return n === null || n === undefined || !Number.isFinite(n);
}

/** The smallest amount written as a figure; anything above 0 and below it reads "<$0.0001". */
const SMALLEST_USD = 0.0001;

/** Dollars: $1,234.50, $12.35, $0.18, $0.0031, <$0.0001. */
export function formatUsd(usd: number | null | undefined): string {
  if (missing(usd)) return DASH;
  const abs = Math.abs(usd);
  const sign = usd < 0 ? '-' : '';
  if (abs === 0) return '$0.00';
  // A machine's first seconds: say it is under a hundredth of a cent rather than "$0.00".
  if (abs < SMALLEST_USD) return `${sign}<$0.0001`;
  if (abs >= 0.995) return `${sign}$${usd2.format(abs)}`;
  // Two significant digits, at least two decimals: 0.18, 0.05, 0.0031.
  const decimals = Math.max(2, 1 - Math.floor(Math.log10(abs)));
  let text = abs.toFixed(decimals);
  // 0.050 → 0.05: zeros past the second decimal say nothing.
  while (text.length > 4 && text.endsWith('0') && text.indexOf('.') < text.length - 3) text = text.slice(0, -1);
  return `${sign}$${text}`;
}

/**
 * Dollar ticks of one chart axis, all with the same decimals (at least two, as many as the finest
 * tick needs, at most four): "$0.000 $0.005 $0.010 $0.015", never "$0.005 $0.01 $0.015".
 */
export function formatUsdTicks(values: readonly number[]): string[] {
  const decimalsOf = (v: number): number => {
    for (let d = 2; d < 4; d++) if (Math.abs(Number(v.toFixed(d)) - v) < 1e-9) return d;
    return 4;
  };
  const decimals = Math.max(2, ...values.filter((v) => Number.isFinite(v)).map(decimalsOf));
  const fmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return values.map((v) => (Number.isFinite(v) ? `${v < 0 ? '-' : ''}$${fmt.format(Math.abs(v))}` : ''));
}

/** A rate in dollars per hour: "$0.35/h". */
export function formatDph(dph: number | null | undefined): string {
  if (missing(dph)) return DASH;
  return `${formatUsd(dph)}/h`;
}

/** 850 ms, 12.3 s, 4 min 05 s, 2 h 03 min, 3 d 4 h. */
export function formatDuration(ms: number | null | undefined): string {
  if (missing(ms) || ms < 0) return DASH;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 59.95) return `${dec1.format(s)} s`;
  const totalS = Math.round(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m} min ${String(totalS % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** A duration on a chart axis, short: "45 s", "1.5 min", "2 h" (the figures themselves use formatDuration). */
export function formatDurationTick(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${dec1.format(s)} s`;
  if (s < 7200) return `${dec1.format(s / 60)} min`;
  return `${dec1.format(s / 3600)} h`;
}

/** Hours as a duration assumption: "1 h", "30 min", "2.5 h". */
export function formatHours(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} min`;
  return `${dec1.format(hours)} h`;
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "just now", "30 seconds ago", "5 minutes ago", "3 hours ago", "yesterday", "4 days ago" (and the future tense). */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return DASH;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return DASH;
  const diffS = Math.round((t - now) / 1000);
  const abs = Math.abs(diffS);
  if (abs < 5) return 'just now';
  if (abs < 60) return rtf.format(diffS, 'second');
  if (abs < 3600) return rtf.format(Math.round(diffS / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(diffS / 3600), 'hour');
  if (abs < 30 * 86_400) return rtf.format(Math.round(diffS / 86_400), 'day');
  return new Date(t).toLocaleDateString();
}

/** The absolute local time, for a tooltip: "2026-11-22 22:31:05 (UTC+00:00)". */
export function formatAbsolute(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return DASH;
  const pad = (n: number) => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const tz = `UTC${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} (${tz})`;
}

/** Clock time for log lines: 22:31:05.123. */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return DASH;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Gigabytes: one decimal under 10 GB ("0.8 GB", "7.5 GB"), whole ones above ("24 GB", "1,024 GB"). */
export function formatGb(gb: number | null | undefined): string {
  if (missing(gb)) return DASH;
  return gb < 9.95 ? `${dec1.format(gb)} GB` : `${int.format(gb)} GB`;
}

/** Memory given in MB (the marketplace's and the catalog's unit), in GB: "24 GB", "0.8 GB". */
export function formatMb(mb: number | null | undefined): string {
  if (missing(mb)) return DASH;
  return formatGb(mb / 1024);
}

/** Bytes, in GB: "3.8 GB". */
export function formatBytes(bytes: number | null | undefined): string {
  if (missing(bytes)) return DASH;
  return formatGb(bytes / 1024 ** 3);
}

/** A file's size: "812 KB", "3.4 MB", "1.2 GB" (a snapshot or an export, not memory). */
export function formatFileSize(bytes: number | null | undefined): string {
  if (missing(bytes)) return DASH;
  if (bytes < 1024 ** 2) return `${int.format(Math.max(1, Math.round(bytes / 1024)))} KB`;
  if (bytes < 1024 ** 3) return `${dec1.format(bytes / 1024 ** 2)} MB`;
  return `${dec1.format(bytes / 1024 ** 3)} GB`;
}

/** A fraction 0..1 as a percentage: "99.5 %". */
export function formatPercent(fraction: number | null | undefined): string {
  if (missing(fraction)) return DASH;
  return `${dec1.format(fraction * 100)} %`;
}

/** The plural of a unit ("tool call" → "tool calls", "match" → "matches", "entry" → "entries"). */
function pluralOf(unit: string): string {
  if (/(s|x|z|ch|sh)$/.test(unit)) return `${unit}es`;
  if (/[^aeiou]y$/.test(unit)) return `${unit.slice(0, -1)}ies`;
  return `${unit}s`;
}

/**
 * A count with thousands separators and, when given, its unit in the right number: "1 tool call",
 * "2,300 jobs". `plural` names an irregular plural.
 */
export function formatCount(n: number | null | undefined, unit?: string, plural?: string): string {
  if (missing(n)) return DASH;
  if (!unit) return int.format(n);
  return `${int.format(n)} ${n === 1 ? unit : (plural ?? pluralOf(unit))}`;
}

/** GPUs of a machine: "1× RTX 3090", "8× H200"; the name alone when the count is unknown. */
export function formatGpus(count: number | null | undefined, name: string | null | undefined): string {
  const gpu = name?.trim() || 'GPU';
  return missing(count) ? gpu : `${int.format(count)}× ${gpu}`;
}

/** A marketplace machine's id, written one way everywhere: "#7000011". */
export function formatInstance(id: number | string | null | undefined): string {
  if (id === null || id === undefined || id === '') return DASH;
  return `#${id}`;
}

/** A plain figure with thousands separators and at most `decimals` decimals: "2,386.9". */
export function formatNumber(n: number | null | undefined, decimals = 1): string {
  if (missing(n)) return DASH;
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: decimals }).format(n);
}

/**
 * A chart axis's tick labels through `format`; uPlot hands null for the ticks it leaves out when
 * they would crowd (narrow charts): those get no label, never "null".
 */
export function axisTicks(format: (v: number) => string): (u: unknown, splits: readonly (number | null)[]) => string[] {
  return (_u, splits) => splits.map((v) => (v === null || v === undefined || !Number.isFinite(v) ? '' : format(v)));
}

/** Tokens per second: "42.1 tok/s". */
export function formatRate(tps: number | null | undefined): string {
  if (missing(tps)) return DASH;
  return `${dec1.format(tps)} tok/s`;
}

/** Milliseconds between two timestamps (end defaults to now, for running jobs). */
export function elapsedMs(startIso: string | null | undefined, endIso?: string | null, now: number = Date.now()): number | null {
  if (!startIso) return null;
  const start = Date.parse(startIso);
  const end = endIso ? Date.parse(endIso) : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}

/** The first line of a message, cut to `max` characters ("…" when cut). */
export function firstLine(text: string | null | undefined, max = 160): string {
  if (!text) return '';
  const line = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A latency in milliseconds, always in ms so a column compares at a glance: "4.2 ms", "1,250.3 ms". */
export function formatMs(ms: number | null | undefined): string {
  if (missing(ms)) return DASH;
  return `${dec1.format(ms)} ms`;
}

/** Requests per second: "3.2 req/s". */
export function formatReqRate(rps: number | null | undefined): string {
  if (missing(rps)) return DASH;
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(rps)} req/s`;
}
