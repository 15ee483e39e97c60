import type { ReportRow, SweepReport } from '../../shared/sweeps';

/**
 * A sweep report as Markdown (GitHub-flavoured tables, fit to paste into a pull request or a wiki
 * page) and as CSV (RFC 4180, the unit in each column name, plain numbers: a spreadsheet sums them).
 */

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
const usd = (x: number | null): string => (x === null ? '–' : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
const num = (x: number | null, digits = 1): string => (x === null ? '–' : x.toFixed(digits));

/** `|` and line breaks would break a Markdown table row. */
function cellText(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The first `left` columns are text (left-aligned), the rest figures (right-aligned). */
function mdTable(header: readonly string[], rows: readonly (readonly string[])[], left = 3): string {
  const align = header.map((_, i) => (i < left ? '---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.map(cellText).join(' | ')} |`).join('\n');
}

function rowStatus(row: ReportRow): string {
  return row.status === 'succeeded' ? '' : `${row.status}${row.reason ? `: ${row.reason}` : ''}`;
}

export function reportMarkdown(report: SweepReport): string {
  const lines: string[] = [];
  lines.push(`## Sweep: ${cellText(report.name)}`);
  lines.push('');
  const ranked = report.rows.filter((r) => r.rank !== null).length;
  lines.push(
    `Status **${report.status}** · spent ${usd(report.spend_usd)} of ${usd(report.max_total_cost_usd)} · ${ranked} of ${report.rows.length} cells ranked ` +
      (report.ranked_by === 'accuracy' ? '(by accuracy, then cost per correct answer)' : '(by $ per million output tokens)'),
  );
  lines.push('');
  if (report.ranked_by === 'accuracy') {
    const hasServing = report.rows.some((r) => r.output_tokens_per_s !== null);
    const header = ['#', 'Model', 'GPU', 'Accuracy', 'Correct', 'Cost', '$ / correct', ...(hasServing ? ['Output tok/s', 'TTFT p50 (ms)', '$ / 1M tok'] : []), 'Pareto', 'Note'];
    const rows = report.rows.map((r) => [
      r.rank === null ? '–' : String(r.rank),
      r.model,
      r.gpu,
      pct(r.accuracy),
      r.passed === null || r.total === null ? '–' : `${r.passed}/${r.total}`,
      usd(r.cost_usd),
      usd(r.cost_per_correct_usd),
      ...(hasServing ? [num(r.output_tokens_per_s), num(r.ttft_p50_ms, 0), usd(r.usd_per_million_output_tokens)] : []),
      r.pareto ? '★' : '',
      rowStatus(r),
    ]);
    lines.push(mdTable(header, rows));
  } else {
    const header = ['#', 'Model', 'GPU', '$ / 1M output tok', 'Output tok/s', 'TTFT p50 (ms)', 'Cost', 'Note'];
    const rows = report.rows.map((r) => [
      r.rank === null ? '–' : String(r.rank),
      r.model,
      r.gpu,
      usd(r.usd_per_million_output_tokens),
      num(r.output_tokens_per_s),
      num(r.ttft_p50_ms, 0),
      usd(r.cost_usd),
      rowStatus(r),
    ]);
    lines.push(mdTable(header, rows));
  }
  if (report.tags.length > 0) {
    lines.push('', '### Accuracy per tag', '');
    const cells = [...new Map(report.tags.flatMap((t) => t.cells.map((c) => [c.cell, `${c.model} @ ${c.gpu}`] as const))).entries()].sort((a, b) => a[0] - b[0]);
    const header = ['Tag', ...cells.map(([, name]) => name)];
    const rows = report.tags.map((t) => [t.tag, ...cells.map(([cell]) => {
      const found = t.cells.find((c) => c.cell === cell);
      return found ? `${pct(found.accuracy)} (${found.passed}/${found.total})` : '–';
    })]);
    lines.push(mdTable(header, rows, 1));
  }
  if (report.pareto.length > 0) {
    lines.push('', '### Pareto front (accuracy against cost)', '');
    for (const p of report.pareto) lines.push(`- ${cellText(p.model)} @ ${cellText(p.gpu)}: ${pct(p.accuracy)} for ${usd(p.cost_usd)}`);
  }
  lines.push('', `_benchdesk sweep ${report.sweep_id}, ${report.as_of}_`, '');
  return lines.join('\n');
}

export const CSV_COLUMNS = [
  'rank',
  'model',
  'gpu',
  'status',
  'reason',
  'accuracy_fraction',
  'passed_count',
  'total_count',
  'cost_usd',
  'cost_per_correct_usd',
  'output_tokens_per_s',
  'ttft_p50_ms',
  'usd_per_million_output_tokens',
  'pareto',
] as const;

function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function reportCsv(report: SweepReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of report.rows) {
    lines.push(
      [r.rank, r.model, r.gpu, r.status, r.reason, r.accuracy, r.passed, r.total, r.cost_usd, r.cost_per_correct_usd, r.output_tokens_per_s, r.ttft_p50_ms, r.usd_per_million_output_tokens, r.pareto]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
