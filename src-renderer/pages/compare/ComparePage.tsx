import { useMemo, useState, type ReactNode } from 'react';
import { useApi } from '../../bridge';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatCount } from '../../lib/format';
import { saveText } from '../../lib/save-file';
import { hrefOf, ROUTES } from '../../router/routes';
import { Picker } from './BenchmarkPicker';
import { questionsOf, toCompareRow, toCsv, toJson, toMarkdown, type CompareRow } from './compare-model';
import { useFinishedJobs } from './CompareGrid';
import { GroupedComparison, GROUP_ABOVE } from './GroupedComparison';
import { RunsComparison } from './RunsComparison';
import { ServingCompare } from './ServingCompare';
import '../overview/common.css';
import './compare.css';

type Mode = 'pick' | 'question';
type ExportFormat = 'csv' | 'md' | 'json';
const MIME: Record<ExportFormat, string> = { csv: 'text/csv', md: 'text/markdown', json: 'application/json' };

/** How the runs are chosen: ticked one by one, or every run of one question. */
function RunsToCompare({
  mode,
  setMode,
  all,
  picked,
  runNumbers,
  toggle,
  questions,
  activeQuestion,
  setQuestion,
}: {
  mode: Mode;
  setMode: (m: Mode) => void;
  all: readonly CompareRow[];
  picked: ReadonlySet<string>;
  runNumbers: ReadonlyMap<string, number>;
  toggle: (id: string) => void;
  questions: readonly { question: string; runs: number }[];
  activeQuestion: string;
  setQuestion: (q: string) => void;
}) {
  return (
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
  );
}

type CompareKind = 'benchmark' | 'serving';

/**
 * The chosen runs: side by side while they are few; grouped by model × GPU (mean, spread, count)
 * from GROUP_ABOVE runs on, with each run still a click away.
 */
function Compared({ rows }: { rows: readonly CompareRow[] }) {
  const [view, setView] = useState<'auto' | 'groups' | 'runs'>('auto');
  const grouped = view === 'groups' || (view === 'auto' && rows.length > GROUP_ABOVE);
  return (
    <>
      {rows.length > 2 ? (
        <div className="compare-view">
          <ToggleGroup
            label="Show"
            value={grouped ? 'groups' : 'runs'}
            onChange={setView}
            options={[
              { value: 'groups', label: 'By model × GPU', testId: 'compare-view-groups' },
              { value: 'runs', label: `Each run (${formatCount(rows.length)})`, testId: 'compare-view-runs' },
            ]}
          />
        </div>
      ) : null}
      {grouped ? <GroupedComparison rows={rows} /> : <RunsComparison rows={rows} />}
    </>
  );
}

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
    saveText(api, name, content, MIME[format]).then(
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
          <RunsToCompare mode={mode} setMode={setMode} all={all} picked={picked} runNumbers={runNumbers} toggle={toggle} questions={questions} activeQuestion={activeQuestion} setQuestion={setQuestion} />
          {rows.length === 0 ? (
            <EmptyState title="Nothing picked yet">Pick runs above to see them side by side.</EmptyState>
          ) : (
            <Compared rows={rows} />
          )}
        </>
      )}
    </Page>
  );
}
