import Table from 'cli-table3';
import pc from 'picocolors';

/**
 * Terminal output helpers. Colour only on a TTY, never with NO_COLOR (https://no-color.org) or
 * TERM=dumb; FORCE_COLOR forces it. Decided per stream: stdout may be piped while stderr is a TTY.
 */
export type Colors = ReturnType<typeof pc.createColors>;

export function colorEnabled(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export const out: Colors = pc.createColors(colorEnabled(process.stdout));
export const err: Colors = pc.createColors(colorEnabled(process.stderr));

/** One line on stdout. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** One line on stderr (status, mode, progress: never mixed into stdout, which --json owns). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** `--json`: exactly the API's JSON, one document, on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A table for stdout; plain borders without colour so it stays readable when piped. */
export function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const t = new Table({
    head: head.map((h) => out.bold(h)),
    style: { head: [], border: [] },
    // No rule between rows: long lists stay compact.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    wordWrap: true,
  });
  for (const row of rows) t.push(row.map((c) => String(c)));
  const lines = t.toString().split('\n');
  // One rule under the header (the top border's shape): readable without colour.
  const top = lines[0] ?? '';
  const rule = top.replace('┌', '├').replace('┐', '┤').replaceAll('┬', '┼');
  return rows.length === 0 ? lines.join('\n') : [...lines.slice(0, 2), rule, ...lines.slice(2)].join('\n');
}

/** ["a", "b", "c", "d"], 2 → "a, b +2 more": a long list kept to one short table cell. */
export function firstOf(items: readonly string[], count: number): string {
  const shown = items.slice(0, count).join(', ');
  return items.length > count ? `${shown} +${items.length - count} more` : shown;
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** 75_400 → "1m 15s"; sub-second values keep one decimal. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h > 0 ? `${h}h ${m}m` : `${m}m ${sec}s`;
}

/** mm:ss (or h:mm:ss) for a live clock. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** Age of an RFC 3339 timestamp relative to `now`: "12s", "5m", "3h", "2d". */
export function formatAge(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '-';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

export function formatUsd(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return `$${value.toFixed(digits)}`;
}
