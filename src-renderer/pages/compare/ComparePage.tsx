import { useMemo, useState, type ReactNode } from 'react';
import { useApi, type RendererApi } from '../../bridge';
import { DataTable, type Column } from '../../components/DataTable';
import { Duration, Money, RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatCount, formatDph, formatGpus, formatRate } from '../../lib/format';
import { hrefOf, ROUTES } from '../../router/routes';
import { CostSpeedChart, PhaseChart, runLabel } from './CompareCharts';
import { questionsOf, toCompareRow, toCsv, toJson, toMarkdown, type CompareRow } from './compare-model';
import { CompareGrid, useFinishedJobs, type CompareMetric } from './CompareGrid';
import { ServingCompare } from './ServingCompare';
import '../overview/common.css';
import './compare.css';

type Mode = 'pick' | 'question';
type ExportFormat = 'csv' | 'md' | 'json';
const MIME: Record<ExportFormat, string> = { csv: 'text/csv', md: 'text/markdown', json: 'application/json' };

/** Saves through the native dialog in the app, or as a download in browser mode. */
async function saveExport(api: RendererApi, name: string, content: string, format: ExportFormat): Promise<string | null> {
  if (api.desktop) {
    const { path } = await api.desktop.saveFile({ suggested_name: name, content });
    return path;
  }
  const url = URL.createObjectURL(new Blob([content], { type: `${MIME[format]};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

function Picker({
  rows,
  selected,
  runNumbers,
  toggle,
}: {
  rows: readonly CompareRow[];
  selected: ReadonlySet<string>;
  /** The number each picked run has in the comparison below (run #1 ran first). */
  runNumbers: ReadonlyMap<string, number>;
  toggle: (id: string) => void;
}) {
  const columns: Column<CompareRow>[] = [
    {
      id: 'pick',
      header: <span className="visually-hidden">Compare</span>,
      width: '36px',
      cell: (r) => (
        <input type="checkbox" checked={selected.has(r.job_id)} onChange={() => toggle(r.job_id)} aria-label={`Compare ${r.job_id}`} data-testid={`pick-${r.job_id}`} />
      ),
    },
    {
      id: 'run',
      header: 'Run',
      width: '56px',
      cell: (r) => {
        const n = runNumbers.get(r.job_id);
        return n === undefined ? <span className="muted" aria-label="not picked">–</span> : <span data-testid={`run-number-${r.job_id}`}>#{n}</span>;
      },
    },
    { id: 'finished', header: 'Finished', cell: (r) => <RelativeTime iso={r.finished_at} />, sortValue: (r) => r.finished_at },
    { id: 'model', header: 'Model', cell: (r) => r.model, sortValue: (r) => r.model },
    { id: 'gpu', header: 'GPU', cell: (r) => gpuText(r) },
    { id: 'question', header: 'Question', cell: (r) => <span className="compare-question" title={r.question}>{r.question}</span> },
    { id: 'cost', header: 'Cost', align: 'right', cell: (r) => <Money usd={r.cost_usd} />, sortValue: (r) => r.cost_usd },
  ];
  return (
    <div className="table-scroll picker">
      <DataTable columns={columns} rows={rows} rowKey={(r) => r.job_id} testId="compare-picker" initialSort={{ column: 'finished', direction: 'desc' }} />
    </div>
  );
}

function gpuText(r: CompareRow): string {
  if (!r.gpu_name) return 'existing backend';
  return formatGpus(r.num_gpus ?? 1, r.gpu_name);
}

type Metric = CompareMetric<CompareRow>;

const METRICS: readonly Metric[] = [
  { id: 'model', label: 'Model', cell: (r) => r.model },
  { id: 'gpu', label: 'GPUs', cell: gpuText },
  { id: 'dph', label: 'Rate', cell: (r) => formatDph(r.dph_total_usd_per_h) },
  { id: 'provision', label: 'Provision', cell: (r) => <Duration ms={r.provision_ms} /> },
  { id: 'warmup', label: 'Warm-up', cell: (r) => <Duration ms={r.warmup_ms} /> },
  { id: 'analysis', label: 'Analysis', cell: (r) => <Duration ms={r.analysis_ms} />, best: { value: (r) => r.analysis_ms, lower: true } },
  { id: 'teardown', label: 'Teardown', cell: (r) => <Duration ms={r.teardown_ms} /> },
  { id: 'total', label: 'Total', cell: (r) => <Duration ms={r.total_ms} />, best: { value: (r) => r.total_ms, lower: true } },
  { id: 'tps', label: 'Generation speed', cell: (r) => formatRate(r.tokens_per_second), best: { value: (r) => r.tokens_per_second, lower: false } },
  { id: 'prompt', label: 'Prompt tokens', cell: (r) => formatCount(r.prompt_tokens) },
  { id: 'completion', label: 'Completion tokens', cell: (r) => formatCount(r.completion_tokens) },
  { id: 'steps', label: 'Steps', cell: (r) => formatCount(r.steps) },
  { id: 'tools', label: 'Tool calls', cell: (r) => formatCount(r.tool_calls) },
  { id: 'cost', label: 'Cost per run', cell: (r) => <Money usd={r.cost_usd} />, best: { value: (r) => r.cost_usd, lower: true } },
];

function Comparison({ rows }: { rows: readonly CompareRow[] }) {
  return (
    <>
      <Panel title={`Side by side (${formatCount(rows.length, 'run')})`} testId="compare-table-panel">
        <CompareGrid rows={rows} metrics={METRICS} testId="compare-table" runTestId="compare-run" />
        <p className="muted note-small">
          Green: the best value of a row (fastest, cheapest). Durations are wall-clock; cost is the rented time × its $/h ($0 on an existing backend).
        </p>
      </Panel>
      <div className="grid-2 compare-charts">
        <Panel title="Phase durations per run">
          <PhaseChart rows={rows} />
        </Panel>
        <Panel title="Cost against tokens/s">
          <CostSpeedChart rows={rows} />
        </Panel>
      </div>
      <Panel title="Answers">
        {rows.map((r, i) => (
          <details key={r.job_id} className="answer" data-testid={`answer-${r.job_id}`}>
            <summary>
              {runLabel(r, i)} <span className="muted">— {r.answer.length > 90 ? `${r.answer.slice(0, 90)}…` : r.answer}</span>
            </summary>
            <pre className="answer-text">{r.answer}</pre>
          </details>
        ))}
      </Panel>
    </>
  );
}

type CompareKind = 'benchmark' | 'serving';

/** Compare: agent benchmarks (with exports), or serving benchmarks side by side. */
export function ComparePage() {
  const [kind, setKind] = useState<CompareKind>('benchmark');
  const kinds = (
    <ToggleGroup
      label="What to compare"
      value={kind}
      onChange={setKind}
      options={[
        { value: 'benchmark', label: 'Agent benchmarks', testId: 'compare-kind-benchmark' },
        { value: 'serving', label: 'Serving benchmarks', testId: 'compare-kind-serving' },
      ]}
    />
  );
  if (kind === 'serving') {
    return (
      <Page title="Compare" subtitle="Finished serving benchmarks side by side: throughput, latency and $ per million tokens." actions={kinds} testId="page-compare">
        <ServingCompare />
      </Page>
    );
  }
  return <BenchmarkCompare kinds={kinds} />;
}

/** Finished benchmarks side by side, with charts and exports. */
function BenchmarkCompare({ kinds }: { kinds: ReactNode }) {
  const api = useApi();
  const list = useFinishedJobs('benchmark');
  const all = useMemo(() => (list.data?.jobs ?? []).map(toCompareRow).filter((r): r is CompareRow => r !== null), [list.data]);
  const questions = useMemo(() => questionsOf(all), [all]);
  const [mode, setMode] = useState<Mode>('pick');
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [question, setQuestion] = useState<string>('');
  const [saved, setSaved] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);

  const activeQuestion = question || questions[0]?.question || '';
  // Oldest first, so run #1 is the first one that ran.
  const rows = useMemo(() => {
    const chosen = mode === 'pick' ? all.filter((r) => picked.has(r.job_id)) : all.filter((r) => r.question === activeQuestion);
    return chosen.slice().sort((a, b) => (a.finished_at ?? '').localeCompare(b.finished_at ?? ''));
  }, [all, mode, picked, activeQuestion]);

  const runNumbers = useMemo(() => new Map(rows.map((r, i) => [r.job_id, i + 1])), [rows]);

  const toggle = (id: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const doExport = (format: ExportFormat) => {
    const now = new Date().toISOString();
    const content = format === 'csv' ? toCsv(rows) : format === 'md' ? toMarkdown(rows, now) : toJson(rows, now);
    const name = `benchdesk-compare-${now.slice(0, 19).replaceAll(':', '-')}.${format}`;
    setSaveError(null);
    saveExport(api, name, content, format).then(
      (path) => setSaved(path ? `Saved ${path}` : null),
      (err: unknown) => setSaveError(err instanceof Error ? err.message : String(err)),
    );
  };

  const exportButtons = (
    <div className="export-buttons" role="group" aria-label="Export the comparison">
      {(['csv', 'md', 'json'] as const).map((f) => (
        <button key={f} type="button" className="button" disabled={rows.length === 0} onClick={() => doExport(f)} data-testid={`export-${f}`}>
          Export {f === 'md' ? 'Markdown' : f.toUpperCase()}
        </button>
      ))}
    </div>
  );

  return (
    <Page
      title="Compare"
      subtitle="Finished benchmarks side by side: speed, phases and what each run cost."
      actions={
        <>
          {kinds}
          {exportButtons}
        </>
      }
      testId="page-compare"
    >
      {saved ? (
        <Notice tone="ok" testId="export-saved">
          {saved}
        </Notice>
      ) : null}
      {saveError ? <Notice tone="error">Export failed: {saveError}</Notice> : null}
      {list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.isPending ? (
        <Loading height={200} />
      ) : all.length === 0 ? (
        <EmptyState title="No finished benchmark yet" testId="compare-empty">
          <p>
            Compare needs benchmarks that succeeded. <a href={hrefOf(ROUTES.launch)}>Launch one</a>, on an existing backend or a rented GPU, then
            come back.
          </p>
        </EmptyState>
      ) : (
        <>
          <Panel
            title="Runs to compare"
            actions={
              <ToggleGroup
                label="How to choose runs"
                value={mode}
                onChange={setMode}
                options={[
                  { value: 'pick', label: 'Pick runs', testId: 'mode-pick' },
                  { value: 'question', label: 'All runs of a question', testId: 'mode-question' },
                ]}
              />
            }
          >
            {mode === 'pick' ? (
              <>
                <p className="muted note-small">
                  {picked.size === 0 ? 'Tick two or more runs.' : `${picked.size} picked.`} The {formatCount(all.length)} newest succeeded benchmarks are listed.
                </p>
                <Picker rows={all} selected={picked} runNumbers={runNumbers} toggle={toggle} />
              </>
            ) : (
              <label className="question-pick">
                <span className="field-label">Question</span>
                <select value={activeQuestion} onChange={(e) => setQuestion(e.target.value)} data-testid="compare-question">
                  {questions.map((q) => (
                    <option key={q.question} value={q.question}>
                      {q.question.length > 100 ? `${q.question.slice(0, 100)}…` : q.question} ({formatCount(q.runs, 'run')})
                    </option>
                  ))}
                </select>
              </label>
            )}
          </Panel>
          {rows.length === 0 ? <EmptyState title="Nothing picked yet">Pick runs above to see them side by side.</EmptyState> : <Comparison rows={rows} />}
        </>
      )}
    </Page>
  );
}
