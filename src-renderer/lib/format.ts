/**
 * Formatting for every number the app shows: money in dollars, durations, sizes, relative times.
 * One place, so a page never prints a bare number without its unit.
 */

const usd2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usd4 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const usd0 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const DASH = '—';

/** Dollars with the precision that matters: $0.0042, $1.23, $1,234. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return DASH;
  const abs = Math.abs(usd);
  if (abs === 0) return usd2.format(0);
  // A machine's first seconds: say it is under a hundredth of a cent rather than "$0.00".
  if (abs < 0.0001) return usd < 0 ? '-<$0.0001' : '<$0.0001';
  if (abs < 1) return usd4.format(usd);
  if (abs >= 1000) return usd0.format(usd);
  return usd2.format(usd);
}

/** A rate in dollars per hour: "$0.35/h". */
export function formatDph(dph: number | null | undefined): string {
  if (dph === null || dph === undefined || !Number.isFinite(dph)) return DASH;
  return `${formatUsd(dph)}/h`;
}

/** 850 ms, 12.3 s, 4 min 05 s, 2 h 03 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return DASH;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${dec1.format(s)} s`;
  const totalS = Math.round(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m} min ${String(totalS % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** Hours as a duration assumption: "1 h", "30 min", "2.5 h". */
export function formatHours(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} min`;
  return `${dec1.format(hours)} h`;
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "just now", "12 s ago", "5 min ago", "3 h ago", "yesterday", "4 days ago" (and the future tense). */
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

/** Memory given in MB (the marketplace's and the catalog's unit): "24 GB", "800 MB". */
export function formatMb(mb: number | null | undefined): string {
  if (mb === null || mb === undefined || !Number.isFinite(mb)) return DASH;
  if (mb < 1024) return `${int.format(mb)} MB`;
  return `${dec1.format(mb / 1024)} GB`;
}

/** Bytes: "3.8 GB". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return DASH;
  return formatMb(bytes / (1024 * 1024));
}

/** A fraction 0..1 as a percentage: "99.5 %". */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return DASH;
  return `${dec1.format(fraction * 100)} %`;
}

export function formatCount(n: number | null | undefined, unit?: string): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return unit ? `${int.format(n)} ${unit}` : int.format(n);
}

/** Tokens per second: "42.1 tok/s". */
export function formatRate(tps: number | null | undefined): string {
  if (tps === null || tps === undefined || !Number.isFinite(tps)) return DASH;
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
