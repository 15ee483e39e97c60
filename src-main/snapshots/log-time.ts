/**
 * The time a log line says it was written, for the snapshot lint (lint.ts): the common ways
 * programs stamp their lines, read from the start of the line (or the JSON/logfmt field that
 * carries it). A line without a recognisable stamp — a stack trace's continuation, a bare
 * message — has none (null), and is never judged. A stamp without a zone is read as UTC, as
 * containers usually run.
 */

const MONTHS: Readonly<Record<string, number>> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/** `2026-11-20T09:29:58.123Z`, `2026-11-20 09:29:58,123 UTC`, `[2026-11-20T09:29:58+01:00]` (RFC 3339, Postgres, Python, log4j). */
const ISO = /^\[?(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s?(Z|UTC|[+-]\d{2}:?\d{2})?(?![\d:])/;
/** klog / glog: `I1120 09:29:58.123456    1 file.go:12] …` (no year). */
const KLOG = /^[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s/;
/** Common/combined log format (nginx, Apache): `… [20/Nov/2026:09:29:58 +0000] "GET …`. */
const CLF = /\[(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\]/;
/** logfmt: `time=2026-11-20T09:29:58Z level=info …` (also `ts=`, `t=`). */
const LOGFMT = /(?:^|\s)(?:time|ts|t)="?(\d{4}-\d{2}-\d{2}[T ][^"\s]+)"?/;
const JSON_TIME_KEYS = ['time', 'ts', 'timestamp', '@timestamp', 'T', 'datetime'] as const;
const MAX_JSON_LINE = 16 * 1024;

function fraction(digits: string | undefined): number {
  return digits ? Math.floor(Number(`0.${digits}`) * 1000) : 0;
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'UTC') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
}

function isoTime(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), fraction(frac));
  return Number.isFinite(utc) ? utc - zoneOffsetMs(zone) : null;
}

/** klog has no year: the recording's, or the year before when that would put the line months ahead of it. */
function klogTime(m: RegExpExecArray, recordedAt: number): number {
  const [, mo, d, h, mi, s, frac] = m;
  const year = new Date(recordedAt).getUTCFullYear();
  const at = (y: number) => Date.UTC(y, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), fraction(frac));
  const same = at(year);
  return same - recordedAt > 180 * 86_400_000 ? at(year - 1) : same;
}

function jsonTime(line: string): number | null {
  if (line.length > MAX_JSON_LINE) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  for (const key of JSON_TIME_KEYS) {
    const value = record[key];
    if (typeof value === 'string') return isoTime(value);
    // zap and friends write epoch seconds (with a fraction); some write milliseconds.
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value < 1e11 ? Math.round(value * 1000) : Math.round(value);
  }
  return null;
}

/** Milliseconds since the epoch the line says it was written at, or null when it carries no stamp this reads. */
export function logLineTime(line: string, recordedAt: number): number | null {
  const text = line.trimStart();
  if (text === '') return null;
  if (text.startsWith('{')) return jsonTime(text);
  const iso = isoTime(text);
  if (iso !== null) return iso;
  const klog = KLOG.exec(text);
  if (klog) return klogTime(klog, recordedAt);
  // The stamp of these forms sits near the start: a long line is not scanned to its end.
  const head = text.slice(0, 512);
  const clf = CLF.exec(head);
  if (clf) {
    const [, d, mon, y, h, mi, s, sign, zh, zm] = clf;
    const month = MONTHS[(mon ?? '').toLowerCase()];
    if (month === undefined) return null;
    const offset = (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm)) * 60_000;
    return Date.UTC(Number(y), month, Number(d), Number(h), Number(mi), Number(s)) - offset;
  }
  const logfmt = LOGFMT.exec(head);
  return logfmt ? isoTime(logfmt[1] ?? '') : null;
}
