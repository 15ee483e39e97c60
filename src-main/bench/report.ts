import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One measured figure, printed beside its target (design §10 / the performance issue). */
export type Figure = {
  section: string;
  scenario: string;
  value: number | null;
  unit: string;
  /** Human-readable target, e.g. "≥ 0.60"; empty when the figure has none. */
  target: string;
  /** Whether the value meets the target; undefined when there is none or it was not measured. */
  ok?: boolean | undefined;
  note?: string;
};

export class Report {
  readonly figures: Figure[] = [];
  readonly startedAt = new Date();

  add(figure: Figure): void {
    this.figures.push(figure);
    const value = figure.value === null ? 'not measured' : `${formatValue(figure.value)} ${figure.unit}`.trim();
    const verdict = figure.ok === undefined ? '' : figure.ok ? '  ok' : '  MISSES TARGET';
    console.log(`  ${figure.section} · ${figure.scenario}: ${value}${figure.target ? ` (target ${figure.target})` : ''}${verdict}${figure.note ? ` — ${figure.note}` : ''}`);
  }

  printTable(): void {
    const rows = this.figures.map((f) => [
      f.section,
      f.scenario,
      f.value === null ? 'not measured' : `${formatValue(f.value)} ${f.unit}`.trim(),
      f.target || '—',
      f.ok === undefined ? '' : f.ok ? 'ok' : 'MISS',
    ]);
    const header = ['section', 'scenario', 'measured', 'target', ''];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
    console.log('');
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const r of rows) console.log(line(r));
  }

  /** Writes bench-results/bench-<timestamp>.json (the folder is git-ignored). */
  writeJson(dir: string, extra: Record<string, unknown>): string {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `bench-${this.startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { node: process.version, platform: `${process.platform}/${process.arch}`, cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? 'unknown', memory_mb: Math.round(os.totalmem() / 2 ** 20) };
    fs.writeFileSync(file, `${JSON.stringify({ started_at: this.startedAt.toISOString(), finished_at: new Date().toISOString(), machine, ...extra, figures: this.figures }, null, 2)}\n`);
    return file;
  }
}

function formatValue(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
