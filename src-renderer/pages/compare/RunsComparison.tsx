import { Duration, Money } from '../../components/Format';
import { Panel } from '../../components/Page';
import { formatCount, formatDph, formatRate } from '../../lib/format';
import { gpuText } from './BenchmarkPicker';
import { CostSpeedChart, PhaseChart, runBars, runLabel, runPoints } from './CompareCharts';
import type { CompareRow } from './compare-model';
import { CompareGrid, type CompareMetric } from './CompareGrid';

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

/** Each run a column, each figure a row (up to a few runs), with the phases and the cost/speed charts and each answer. */
export function RunsComparison({ rows }: { rows: readonly CompareRow[] }) {
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
          <PhaseChart bars={runBars(rows)} />
        </Panel>
        <Panel title="Cost against tokens/s">
          <CostSpeedChart points={runPoints(rows)} />
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

