import { useMemo } from 'react';
import { Panel } from '../../components/Page';
import { formatCount, formatDuration, formatNumber, formatRate, formatUsd } from '../../lib/format';
import { groupBy, spreadOf, type Group } from './aggregate';
import { gpuText } from './BenchmarkPicker';
import { CostSpeedChart, PhaseChart, type CostSpeedPoint, type PhaseBar } from './CompareCharts';
import { PHASE_FIELDS, type CompareRow } from './compare-model';
import { GROUP_NOTE, GroupTable, type GroupFigure } from './GroupTable';

/** From this many runs on, Compare shows groups instead of one column per run. */
export const GROUP_ABOVE = 8;

const FIGURES: readonly GroupFigure<CompareRow>[] = [
  { id: 'total', label: 'Total', value: (r) => r.total_ms, format: (v) => formatDuration(v), lower: true },
  { id: 'analysis', label: 'Analysis', value: (r) => r.analysis_ms, format: (v) => formatDuration(v), lower: true },
  { id: 'tps', label: 'Generation speed', value: (r) => r.tokens_per_second, format: formatRate, lower: false },
  { id: 'cost', label: 'Cost per run', value: (r) => r.cost_usd, format: formatUsd, lower: true },
  { id: 'steps', label: 'Steps', value: (r) => r.steps, format: (v) => formatNumber(v, 1), lower: true },
  { id: 'tools', label: 'Tool calls', value: (r) => r.tool_calls, format: (v) => formatNumber(v, 1), lower: true },
];

/** A group's name on charts: the model (cut to 18 characters) and its GPU. */
function shortLabel(g: Group<CompareRow>): string {
  const first = g.runs[0];
  if (!first) return g.label;
  const model = first.model.length > 18 ? `${first.model.slice(0, 17)}…` : first.model;
  return `${model} · ${first.gpu_name ?? 'own server'}`;
}

/**
 * Many runs of a question: one row per model × GPU with each figure's mean ± spread and how many
 * runs it stands for; a figure is marked best only where its lead is larger than the spread. The
 * charts show the groups (their means, the spread as whiskers), so they stay readable at any count.
 */
export function GroupedComparison({ rows }: { rows: readonly CompareRow[] }) {
  const groups = useMemo(() => groupBy(rows, (r) => `${r.model}|${r.gpu_name ?? ''}|${r.num_gpus ?? ''}`, (r) => `${r.model} on ${gpuText(r)}`), [rows]);
  // The groups are numbered in the table and on both charts, whose keys name them.
  const bars: PhaseBar[] = groups.map((g, i) => ({ label: `${i + 1} ${shortLabel(g)}`, phases: PHASE_FIELDS.map((p) => spreadOf(g.runs.map((r) => r[p]))?.mean ?? null) }));
  const points: CostSpeedPoint[] = groups.flatMap((g, i) => {
    const x = spreadOf(g.runs.map((r) => r.tokens_per_second));
    const y = spreadOf(g.runs.map((r) => r.cost_usd));
    return x && y ? [{ x: x.mean, y: y.mean, xsd: x.sd, ysd: y.sd, label: `${i + 1} ${shortLabel(g)}`, key: String(i + 1) }] : [];
  });
  return (
    <>
      <Panel title={`By model × GPU (${formatCount(groups.length, 'group')}, ${formatCount(rows.length, 'run')})`} testId="compare-groups-panel">
        <GroupTable groups={groups} figures={FIGURES} testId="compare-groups" />
        <p className="muted note-small">{GROUP_NOTE}</p>
      </Panel>
      <div className="grid-2 compare-charts">
        <Panel title="Phase durations per group (means)">
          <PhaseChart bars={bars} />
        </Panel>
        <Panel title="Cost against tokens/s per group (± spread)">
          <CostSpeedChart points={points} />
        </Panel>
      </div>
    </>
  );
}
