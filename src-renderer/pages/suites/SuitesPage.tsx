import { useRef, useState, type ChangeEvent } from 'react';
import { agreementInWords, type Scenario, type Suite, type SuiteSummary } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatCount, formatPercent } from '../../lib/format';
import { useApi } from '../../bridge';
import { useDeleteSuite, useImportSuite, useSuite, useSuites } from '../../queries/suites';
import { hrefOf, snapshotPath } from '../../router/routes';
import { RecordCluster } from '../snapshots/RecordCluster';
import { RunSuiteForm } from './RunSuiteForm';
import { SnapshotBrowser } from './SnapshotBrowser';
import { TryAnswer } from './TryAnswer';
import './suites.css';

/**
 * Suites: each a list of scenarios (a question on a recorded cluster, with what a correct answer
 * must say). Browse a scenario's snapshot, record a cluster, import and export suites, and run one.
 */
export function SuitesPage() {
  const suites = useSuites();
  const [selected, setSelected] = useState<string | null>(null);
  const [recording, setRecording] = useState(false);
  const importSuite = useImportSuite();
  const fileInput = useRef<HTMLInputElement>(null);
  const [importProblem, setImportProblem] = useState<string | null>(null);

  const list = suites.data?.suites ?? [];
  const current = selected ?? list[0]?.suite_id ?? null;

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setImportProblem(null);
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch {
      setImportProblem(`${file.name} is not JSON: choose a file written by Export (a benchdesk.suite/v1 document).`);
      return;
    }
    importSuite.mutate(doc, {
      onSuccess: (suite) => setSelected(suite.suite_id),
      onError: (err) => {
        const issues = err.problem.errors ?? [];
        setImportProblem(
          issues.length > 0
            ? `${file.name} is not a valid suite document: ${issues.slice(0, 5).map((i) => `${i.path || 'the document'}: ${i.message}`).join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`
            : err.message,
        );
      },
    });
  };

  return (
    <Page
      title="Suites"
      subtitle="Scenarios on recorded clusters, with what a correct diagnosis must say: run one to score a model and an agent."
      testId="suites-page"
      actions={
        <div className="suites-actions">
          <button type="button" className="button" onClick={() => setRecording((r) => !r)} aria-expanded={recording} data-testid="suites-record">
            Record a cluster
          </button>
          <button type="button" className="button" onClick={() => fileInput.current?.click()} disabled={importSuite.isPending} data-testid="suites-import">
            {importSuite.isPending ? 'Importing…' : 'Import a suite'}
          </button>
          <input ref={fileInput} type="file" accept="application/json,.json" hidden onChange={(e) => void onFile(e)} data-testid="suites-import-file" />
        </div>
      }
    >
      {recording ? <RecordCluster onClose={() => setRecording(false)} /> : null}
      {importProblem ? (
        <Notice tone="error" testId="suites-import-error">
          {importProblem}
        </Notice>
      ) : null}
      {importSuite.isSuccess ? (
        <Notice tone="ok" testId="suites-import-done">
          Imported {importSuite.data.name} ({formatCount(importSuite.data.scenarios.length, 'scenario')}).
        </Notice>
      ) : null}
      {suites.isPending ? (
        <Loading label="Loading suites…" height={240} />
      ) : suites.isError ? (
        <ErrorState error={suites.error} onRetry={() => void suites.refetch()} testId="suites-error" />
      ) : list.length === 0 ? (
        <EmptyState title="No suites" testId="suites-empty">
          <p>Import a suite, or record a cluster and create a suite with POST /v1/suites (see docs/suites.md).</p>
        </EmptyState>
      ) : (
        <div className="suites-layout">
          <nav className="suites-list" aria-label="Suites">
            <ul>
              {list.map((s) => (
                <li key={s.suite_id}>
                  <SuiteButton suite={s} current={s.suite_id === current} onSelect={() => setSelected(s.suite_id)} />
                </li>
              ))}
            </ul>
          </nav>
          <div className="suites-detail">{current ? <SuiteDetail key={current} suiteId={current} onDeleted={() => setSelected(null)} /> : null}</div>
        </div>
      )}
    </Page>
  );
}

function SuiteButton({ suite, current, onSelect }: { suite: SuiteSummary; current: boolean; onSelect: () => void }) {
  return (
    <button type="button" className="suites-item" aria-current={current ? 'true' : undefined} onClick={onSelect} data-testid={`suite-${suite.suite_id}`}>
      <span className="suites-item-name">{suite.name}</span>
      <span className="muted">
        {formatCount(suite.scenario_count, 'scenario')}
        {suite.read_only ? ' · shipped' : ''}
      </span>
    </button>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function SuiteDetail({ suiteId, onDeleted }: { suiteId: string; onDeleted: () => void }) {
  const api = useApi();
  const suite = useSuite(suiteId);
  const remove = useDeleteSuite();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [exporting, setExporting] = useState<string | null>(null);
  const [browsing, setBrowsing] = useState<string | null>(null);
  const [trying, setTrying] = useState<string | null>(null);

  if (suite.isPending) return <Loading label="Loading the suite…" height={240} />;
  if (suite.isError) return <ErrorState error={suite.error} onRetry={() => void suite.refetch()} />;
  const s: Suite = suite.data;

  const exportIt = async () => {
    setExporting('Exporting…');
    try {
      const doc = await api.exportSuite({ suite_id: s.suite_id });
      download(`${s.suite_id}.suite.json`, `${JSON.stringify(doc, null, 2)}\n`);
      setExporting(null);
    } catch (err) {
      setExporting(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  // The Run form is below the scenarios: bring it into view and put the keyboard in it.
  const focusRunForm = () => {
    const form = document.getElementById('run-suite-form');
    form?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    form?.querySelector<HTMLElement>('select, input')?.focus({ preventScroll: true });
  };
  const browsed = s.scenarios.find((c) => c.scenario_id === browsing) ?? null;
  const tried = s.scenarios.find((c) => c.scenario_id === trying) ?? null;
  const agreement = agreementInWords(s.fixture_agreement);

  return (
    <>
      <Panel
        title={s.name}
        testId="suite-detail"
        actions={
          <>
            <button type="button" className="button button-small button-primary" onClick={focusRunForm} data-testid="suite-run">
              Run this suite
            </button>
            <button type="button" className="button button-small" onClick={() => void exportIt()} data-testid="suite-export">
              Export
            </button>
            <button
              type="button"
              className="button button-small"
              onClick={() => setConfirmDelete(true)}
              disabled={s.read_only}
              title={s.read_only ? 'The shipped suite cannot be deleted' : undefined}
              data-testid="suite-delete"
            >
              Delete
            </button>
          </>
        }
      >
        {s.description ? <p>{s.description}</p> : null}
        {agreement && s.fixture_agreement ? (
          <p className={`suite-agreement ${s.fixture_agreement.agreed === s.fixture_agreement.total ? 'muted' : 'suite-missed'}`} data-testid="suite-agreement">
            The scoring rules agree with {s.fixture_agreement.agreed} of {s.fixture_agreement.total} labelled answers ({formatPercent(s.fixture_agreement.agreed / Math.max(1, s.fixture_agreement.total))}) in this suite
            {s.fixture_agreement.disagreements.length > 0 ? `; they read otherwise: ${s.fixture_agreement.disagreements.slice(0, 3).map((d) => `${d.scenario_id} #${d.fixture + 1} (${d.note || d.label})`).join(', ')}` : ''}.
          </p>
        ) : null}
        {exporting ? <p className="muted">{exporting}</p> : null}
        <ScenarioTable
          scenarios={s.scenarios}
          browsing={browsing}
          trying={trying}
          onBrowse={(id) => setBrowsing((b) => (b === id ? null : id))}
          onTry={(id) => setTrying((t) => (t === id ? null : id))}
        />
      </Panel>
      {tried ? (
        <Panel title={`Try an answer: “${tried.title}”`} testId="scenario-try" actions={<button type="button" className="button button-small" onClick={() => setTrying(null)}>Close</button>}>
          <ScenarioFacts scenario={tried} />
          <TryAnswer key={tried.scenario_id} suiteId={s.suite_id} scenario={tried} />
        </Panel>
      ) : null}
      {browsed ? (
        <Panel
          title={`Snapshot of “${browsed.title}”`}
          testId="scenario-snapshot"
          actions={
            <a className="button button-small" href={hrefOf(snapshotPath(browsed.snapshot_id))}>
              Open on its own page
            </a>
          }
        >
          <ScenarioFacts scenario={browsed} />
          <SnapshotBrowser snapshotId={browsed.snapshot_id} />
        </Panel>
      ) : null}
      <RunSuiteForm suite={s} />
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${s.name}?`}
        tone="danger"
        confirmLabel="Delete"
        busy={remove.isPending}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => remove.mutate(s.suite_id, { onSuccess: () => (setConfirmDelete(false), onDeleted()) })}
        testId="suite-delete-confirm"
      >
        <p>The suite goes; its snapshots stay (delete them from the snapshot list once no suite uses them). Past runs keep their results.</p>
        {remove.isError ? <ErrorState error={remove.error} /> : null}
      </ConfirmDialog>
    </>
  );
}

const DIFFICULTY_TONE: Record<Scenario['difficulty'], string> = { easy: 'badge-ok', medium: 'badge-warn', hard: 'badge-error' };

type ScenarioTableProps = { scenarios: readonly Scenario[]; browsing: string | null; trying: string | null; onBrowse: (id: string) => void; onTry: (id: string) => void };

function ScenarioTable({ scenarios, browsing, trying, onBrowse, onTry }: ScenarioTableProps) {
  return (
    <div className="table-wrap">
      <table className="table scenario-table" data-testid="scenario-table">
        <thead>
          <tr>
            <th scope="col">Scenario</th>
            <th scope="col">Difficulty</th>
            <th scope="col">Tags</th>
            <th scope="col" className="right">
              Findings
            </th>
            <th scope="col">
              <span className="visually-hidden">Snapshot and scoring</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {scenarios.map((c) => (
            <tr key={c.scenario_id} aria-selected={browsing === c.scenario_id} data-testid={`scenario-${c.scenario_id}`}>
              <td>
                <div className="scenario-title">{c.title}</div>
                <div className="muted scenario-question">{c.question}</div>
              </td>
              <td>
                <span className={`badge ${DIFFICULTY_TONE[c.difficulty]}`}>{c.difficulty}</span>
              </td>
              <td className="muted">{c.tags.join(', ')}</td>
              <td className="right">{c.expected.length}</td>
              <td className="scenario-actions">
                <button type="button" className="button button-small" aria-expanded={browsing === c.scenario_id} onClick={() => onBrowse(c.scenario_id)} data-testid={`browse-${c.scenario_id}`}>
                  {browsing === c.scenario_id ? 'Hide snapshot' : 'Browse snapshot'}
                </button>
                <button type="button" className="button button-small" aria-expanded={trying === c.scenario_id} onClick={() => onTry(c.scenario_id)} data-testid={`try-${c.scenario_id}`}>
                  {trying === c.scenario_id ? 'Hide answer box' : 'Try an answer'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a correct answer must say, and must not. */
function ScenarioFacts({ scenario }: { scenario: Scenario }) {
  return (
    <div className="scenario-facts" data-testid="scenario-facts">
      <p>
        <strong>Question:</strong> {scenario.question}
      </p>
      {scenario.expected.length > 0 ? (
        <>
          <strong>A correct answer says</strong>
          <ul>
            {scenario.expected.map((f) => (
              <li key={f.finding}>
                {f.finding}
                <details className="scenario-patterns">
                  <summary>patterns</summary>
                  <code>{f.any_of.map((p) => `/${p}/i`).join('  or  ')}</code>
                  {(f.all_of ?? []).map((group, i) => (
                    <code key={i}>and also: {group.map((p) => `/${p}/i`).join('  or  ')}</code>
                  ))}
                </details>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>A correct answer finds nothing wrong.</p>
      )}
      {scenario.verdict ? (
        <p className="scenario-truth" data-testid="scenario-truth">
          <strong>Ground truth:</strong>{' '}
          {scenario.verdict.healthy ? 'healthy, nothing to fix' : scenario.verdict.causes.map((c) => `${c.category} (${c.objects.join(', ')})`).join(' and ')}
        </p>
      ) : null}
      {scenario.must_not.length > 0 ? (
        <details className="scenario-patterns">
          <summary>claims that fail the answer ({scenario.must_not.length})</summary>
          <code>{scenario.must_not.map((p) => `/${p}/i`).join(',  ')}</code>
        </details>
      ) : null}
    </div>
  );
}
