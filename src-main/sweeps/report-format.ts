import type { Manifest } from '../../shared/manifest';
import type { ReportRow, SweepReport } from '../../shared/sweeps';

/**
 * A sweep report as Markdown (GitHub-flavoured tables, fit to paste into a pull request or a wiki
 * page) and as CSV (RFC 4180, the unit in each column name, plain numbers: a spreadsheet sums them).
 * Both are safe to open (issue 34 item 7): the Markdown escapes HTML, so a model or GPU name cannot
 * inject markup; the CSV neutralises text cells a spreadsheet would run as a formula.
 */

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
const usd = (x: number | null): string => (x === null ? '–' : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
const num = (x: number | null, digits = 1): string => (x === null ? '–' : x.toFixed(digits));

/** HTML a Markdown renderer would pass through, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `|` and line breaks would break a Markdown table row; HTML is escaped. */
function cellText(text: string): string {
  return escapeHtml(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The first `left` columns are text (left-aligned), the rest figures (right-aligned). */
function mdTable(header: readonly string[], rows: readonly (readonly string[])[], left = 3): string {
  const align = header.map((_, i) => (i < left ? '---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.map(cellText).join(' | ')} |`).join('\n');
}

function rowStatus(row: ReportRow): string {
  const status = row.status === 'succeeded' ? '' : `${row.status}${row.reason ? `: ${row.reason}` : ''}`;
  const serving = row.serving_error ? `serving failed: ${row.serving_error}` : '';
  const errors = row.errors ? `${row.errors} error(s) not counted` : '';
  return [status, serving, errors].filter((x) => x !== '').join('; ');
}

function interval(row: ReportRow): string {
  const [lo, hi] = row.accuracy_ci95 ?? [];
  return lo === undefined || hi === undefined ? '–' : `${Math.round(lo * 100)}–${Math.round(hi * 100)} %`;
}

function accuracyTable(report: SweepReport): string {
  const hasServing = report.rows.some((r) => r.output_tokens_per_s !== null);
  const header = ['Tier', 'Model', 'GPU', 'Accuracy', '95% interval', 'Correct', 'Suite cost', '$ / correct', ...(hasServing ? ['Output tok/s', 'TTFT p50 (ms)', '$ / 1M tok'] : []), 'Pareto', 'Note'];
  const rows = report.rows.map((r) => [
    r.rank === null ? '–' : String(r.rank),
    r.model,
    r.gpu,
    pct(r.accuracy),
    interval(r),
    r.passed === null || r.total === null ? '–' : `${r.passed}/${r.total - (r.errors ?? 0)}`,
    usd(r.suite_cost_usd ?? r.cost_usd),
    usd(r.cost_per_correct_usd),
    ...(hasServing ? [num(r.output_tokens_per_s), num(r.ttft_p50_ms, 0), usd(r.usd_per_million_output_tokens)] : []),
    r.pareto ? '★' : '',
    rowStatus(r),
  ]);
  return mdTable(header, rows);
}

function servingTable(report: SweepReport): string {
  const header = ['Tier', 'Model', 'GPU', '$ / 1M output tok', 'Output tok/s', 'TTFT p50 (ms)', 'TTFT p99 (ms)', 'Cost', 'Note'];
  const rows = report.rows.map((r) => [r.rank === null ? '–' : String(r.rank), r.model, r.gpu, usd(r.usd_per_million_output_tokens), num(r.output_tokens_per_s), num(r.ttft_p50_ms, 0), num(r.ttft_p99_ms, 0), usd(r.cost_usd), rowStatus(r)]);
  return mdTable(header, rows);
}

function tagSection(report: SweepReport): string[] {
  if (report.tags.length === 0) return [];
  const cells = [...new Map(report.tags.flatMap((t) => t.cells.map((c) => [c.cell, `${c.model} @ ${c.gpu}`] as const))).entries()].sort((a, b) => a[0] - b[0]);
  const header = ['Tag', ...cells.map(([, name]) => name)];
  const rows = report.tags.map((t) => [
    t.tag,
    ...cells.map(([cell]) => {
      const found = t.cells.find((c) => c.cell === cell);
      return found ? `${pct(found.accuracy)} (${found.passed}/${found.total})` : '–';
    }),
  ]);
  return ['', '### Accuracy per tag', '', mdTable(header, rows, 1)];
}

function manifestSection(m: Manifest): string[] {
  const facts: [string, string | number | null][] = [
    ['benchdesk', m.benchdesk_version],
    ['suite', m.suite_id === null ? null : `${m.suite_id}${m.suite_sha256 ? ` (sha256 ${m.suite_sha256})` : ''}`],
    ['snapshots', m.snapshot_sha256 ? Object.entries(m.snapshot_sha256).map(([id, h]) => `${id} ${h.slice(0, 12)}…`).join(', ') : null],
    ['model digest', m.model_digest],
    ['backend', m.backend_api === null ? null : `${m.backend_api} ${m.backend_version ?? ''}`.trim()],
    ['agent', m.agent === null ? null : `${m.agent} ${m.agent_version ?? ''}`.trim()],
    ['temperature', m.temperature],
    ['seed', m.seed],
    ['template', m.template?.hash ?? null],
    ['started', m.started_at],
  ];
  return ['', '### Manifest', '', ...facts.filter(([, v]) => v !== null).map(([k, v]) => `- ${k}: ${cellText(String(v))}`)];
}

export function reportMarkdown(report: SweepReport): string {
  const lines: string[] = [];
  lines.push(`## Sweep: ${cellText(report.name)}`);
  lines.push('');
  const ranked = report.rows.filter((r) => r.rank !== null).length;
  lines.push(
    `Status **${report.status}** · spent ${usd(report.spend_usd)} of ${usd(report.max_total_cost_usd)} · ${ranked} of ${report.rows.length} cells ranked ` +
      (report.ranked_by === 'accuracy'
        ? '(by accuracy tier: cells whose 95% intervals overlap share a tier; within a tier by $ per correct answer, the suite’s time only)'
        : '(by $ per million output tokens)'),
  );
  if (report.headline) lines.push('', `**${report.headline.met ? 'Answer' : 'No cell meets the constraints'}:** ${cellText(report.headline.text)}`);
  lines.push('');
  lines.push(report.ranked_by === 'accuracy' ? accuracyTable(report) : servingTable(report));
  lines.push(...tagSection(report));
  if (report.pareto.length > 0) {
    lines.push('', '### Pareto front (accuracy against the suite’s cost; cells with no correct answer left out)', '');
    for (const p of report.pareto) lines.push(`- ${cellText(p.model)} @ ${cellText(p.gpu)}: ${pct(p.accuracy)} for ${usd(p.cost_usd)}`);
  }
  lines.push(...manifestSection(report.manifest));
  lines.push('', `_benchdesk sweep ${cellText(report.sweep_id)}, ${report.as_of}_`, '');
  return lines.join('\n');
}

export const CSV_COLUMNS = [
  'rank_tier',
  'model',
  'gpu',
  'status',
  'reason',
  'accuracy_fraction',
  'accuracy_ci95_low_fraction',
  'accuracy_ci95_high_fraction',
  'passed_count',
  'total_count',
  'errors_count',
  'cost_usd',
  'suite_cost_usd',
  'cost_per_correct_usd',
  'output_tokens_per_s',
  'ttft_p50_ms',
  'ttft_p99_ms',
  'usd_per_million_output_tokens',
  'pareto',
  'serving_error',
  'model_digest',
  'suite_sha256',
  'backend_version',
  'benchdesk_version',
  'temperature',
  'seed',
  'template_hash',
] as const;

/** A text cell a spreadsheet would run as a formula (= + - @, or a tab or CR first) gets a leading quote. */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = typeof value === 'string' ? neutraliseFormula(value) : String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function reportCsv(report: SweepReport): string {
  const m = report.manifest;
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of report.rows) {
    const [lo, hi] = r.accuracy_ci95 ?? [null, null];
    lines.push(
      [
        r.rank,
        r.model,
        r.gpu,
        r.status,
        r.reason,
        r.accuracy,
        lo ?? null,
        hi ?? null,
        r.passed,
        r.total,
        r.errors,
        r.cost_usd,
        r.suite_cost_usd,
        r.cost_per_correct_usd,
        r.output_tokens_per_s,
        r.ttft_p50_ms,
        r.ttft_p99_ms,
        r.usd_per_million_output_tokens,
        r.pareto,
        r.serving_error,
        r.model_digest ?? m.model_digest,
        m.suite_sha256,
        m.backend_version,
        m.benchdesk_version,
        m.temperature,
        m.seed,
        m.template?.hash ?? null,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
