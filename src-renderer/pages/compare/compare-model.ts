import type { BENCHMARK_PHASES, JobRecord } from '../../../shared';

/** One finished benchmark as the Compare page shows and exports it (units in the field names). */
export type CompareRow = {
  job_id: string;
  finished_at: string | null;
  question: string;
  model: string;
  agent: string | null;
  gpu_name: string | null;
  num_gpus: number | null;
  dph_total_usd_per_h: number | null;
  provision_ms: number | null;
  warmup_ms: number | null;
  analysis_ms: number | null;
  teardown_ms: number | null;
  total_ms: number | null;
  tokens_per_second: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  steps: number | null;
  tool_calls: number | null;
  cost_usd: number | null;
  answer: string;
};

export const PHASE_FIELDS = ['provision_ms', 'warmup_ms', 'analysis_ms', 'teardown_ms'] as const satisfies readonly (keyof CompareRow)[];

/** The column order of the CSV and Markdown exports. */
export const EXPORT_COLUMNS = [
  'job_id',
  'finished_at',
  'question',
  'model',
  'agent',
  'gpu_name',
  'num_gpus',
  'dph_total_usd_per_h',
  ...PHASE_FIELDS,
  'total_ms',
  'tokens_per_second',
  'prompt_tokens',
  'completion_tokens',
  'steps',
  'tool_calls',
  'cost_usd',
  'answer',
] as const satisfies readonly (keyof CompareRow)[];

/** A succeeded benchmark's figures; null for anything that is not one. */
export function toCompareRow(job: JobRecord): CompareRow | null {
  if (job.kind !== 'benchmark' || job.status !== 'succeeded' || !job.result) return null;
  const r = job.result;
  const phase = (name: (typeof BENCHMARK_PHASES)[number]) => r.phases.find((p) => p.name === name)?.duration_ms ?? null;
  const phaseTotal = r.phases.reduce((s, p) => s + p.duration_ms, 0);
  const started = job.started_at ? Date.parse(job.started_at) : NaN;
  const finished = job.finished_at ? Date.parse(job.finished_at) : NaN;
  const wall = Number.isFinite(started) && Number.isFinite(finished) ? finished - started : null;
  const rented = r.contract_id !== null || r.instance !== null;
  return {
    job_id: job.job_id,
    finished_at: job.finished_at,
    question: job.request.question,
    model: r.model_name,
    agent: r.metadata.agent ?? job.request.agent ?? null,
    gpu_name: r.instance?.gpu_name ?? null,
    num_gpus: r.instance?.num_gpus ?? null,
    dph_total_usd_per_h: rented ? r.cost.dph_total : null,
    provision_ms: phase('provision'),
    warmup_ms: phase('warmup'),
    analysis_ms: phase('analysis'),
    teardown_ms: phase('teardown'),
    total_ms: wall ?? (phaseTotal || null),
    tokens_per_second: r.metadata.tokens_per_second,
    prompt_tokens: r.metadata.prompt_tokens,
    completion_tokens: r.metadata.completion_tokens,
    steps: r.metadata.steps,
    tool_calls: r.metadata.tool_calls,
    cost_usd: r.cost.cost_usd,
    answer: r.answer,
  };
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // RFC 4180: quote a field with a comma, a quote or a line break, doubling the quotes.
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly CompareRow[]): string {
  const lines = [EXPORT_COLUMNS.join(',')];
  for (const row of rows) lines.push(EXPORT_COLUMNS.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function mdCell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return String(value).replaceAll('\\', '\\\\').replaceAll('|', '\\|').replace(/\r?\n/g, '<br>');
}

/** A Markdown table of the figures, then each run's answer under its own heading. */
export function toMarkdown(rows: readonly CompareRow[], generatedAt: string): string {
  const cols = EXPORT_COLUMNS.filter((c) => c !== 'answer');
  const out = [
    '# benchdesk comparison',
    '',
    `Generated ${generatedAt}; ${rows.length} run(s). Durations in ms, rates in USD per hour, cost in USD.`,
    '',
    `| ${cols.join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => mdCell(r[c])).join(' | ')} |`),
    '',
    '## Answers',
  ];
  for (const r of rows) out.push('', `### ${r.job_id} (${r.model})`, '', r.answer.trim() || '_(empty)_');
  return `${out.join('\n')}\n`;
}

export function toJson(rows: readonly CompareRow[], generatedAt: string): string {
  return `${JSON.stringify({ generated_at: generatedAt, runs: rows }, null, 2)}\n`;
}

/** Distinct questions with how many finished runs each has, most runs first. */
export function questionsOf(rows: readonly CompareRow[]): { question: string; runs: number }[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.question, (counts.get(r.question) ?? 0) + 1);
  return [...counts.entries()].map(([question, runs]) => ({ question, runs })).sort((a, b) => b.runs - a.runs || a.question.localeCompare(b.question));
}
