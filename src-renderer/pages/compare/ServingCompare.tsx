import { useCallback, useMemo, useState } from 'react';
import type { AlignedData, Options } from 'uplot';
import { Chart, type ChartColors } from '../../components/Chart';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime } from '../../components/Format';
import { Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { axisTicks, formatCount, formatDph, formatGpus, formatInstance, formatMs, formatNumber, formatRate, formatUsd } from '../../lib/format';
import { useSweeps } from '../../queries/sweeps';
import { hrefOf, ROUTES } from '../../router/routes';
import { groupBy } from './aggregate';
import { CompareGrid, useFinishedJobs, type CompareMetric } from './CompareGrid';
import { GROUP_ABOVE } from './GroupedComparison';
import { GROUP_NOTE, GroupTable, type GroupFigure } from './GroupTable';
import { sharedLevels, throughputSeries, toServingRow, withSweepMachine, type ServingCompareRow } from './serving-compare-model';

const AXIS_TITLE_FONT = '600 12px system-ui, sans-serif';

const gpuText = (r: ServingCompareRow) => (r.gpu_name ? `${formatGpus(r.num_gpus ?? 1, r.gpu_name)}${r.sweep ? ` (sweep “${r.sweep}”)` : ''}` : 'existing backend');
const levelsText = (r: ServingCompareRow) => r.levels.map((l) => l.concurrency).join(', ');

type Metric = CompareMetric<ServingCompareRow>;

const METRICS: readonly Metric[] = [
  { id: 'model', label: 'Model', cell: (r) => r.model },
  { id: 'engine', label: 'Engine', cell: (r) => r.engine },
  { id: 'gpu', label: 'GPUs', cell: gpuText },
  { id: 'instance', label: 'Instance', cell: (r) => (r.instance_id === null ? '—' : formatInstance(r.instance_id)) },
  { id: 'dph', label: 'Rate', cell: (r) => formatDph(r.dph_total) },
  { id: 'shape', label: 'Tokens in / out per request', cell: (r) => `${formatCount(r.prompt_tokens)} / ${formatCount(r.output_tokens)}` },
  { id: 'levels', label: 'Concurrency levels', cell: levelsText },
  { id: 'best-tps', label: 'Most output tokens/s', cell: (r) => (r.fastest ? `${formatRate(r.fastest.output_tokens_per_s)} at ${r.fastest.concurrency}` : '—'), best: { value: (r) => r.fastest?.output_tokens_per_s ?? null, lower: false } },
  { id: 'best-ttft', label: 'TTFT p50 there', cell: (r) => formatMs(r.fastest?.ttft_ms?.p50), best: { value: (r) => r.fastest?.ttft_ms?.p50 ?? null, lower: true } },
  { id: 'best-tpot', label: 'TPOT p50 there', cell: (r) => formatMs(r.fastest?.tpot_ms?.p50), best: { value: (r) => r.fastest?.tpot_ms?.p50 ?? null, lower: true } },
  { id: 'one-ttft', label: 'TTFT p50, lowest level', cell: (r) => formatMs(r.levels[0]?.ttft_ms?.p50) },
  {
    id: 'cheapest',
    label: '$ per 1M output tokens, cheapest level',
    cell: (r) => (r.usd_per_million !== null ? `${formatUsd(r.usd_per_million)}${r.cheapest && !r.sweep ? ` at ${r.cheapest.concurrency}` : ''}` : r.gpu_name ? '—' : 'not rented'),
    best: { value: (r) => r.usd_per_million, lower: true },
  },
  { id: 'cost', label: 'Cost of the run', cell: (r) => <Money usd={r.cost_usd} /> },
];

const runName = (r: ServingCompareRow, i: number) => `#${i + 1} ${r.model}${r.gpu_name ? ` on ${r.gpu_name}` : ''} (${r.engine})`;

const GROUP_FIGURES: readonly GroupFigure<ServingCompareRow>[] = [
  { id: 'tps', label: 'Most output tokens/s', value: (r) => r.fastest?.output_tokens_per_s ?? null, format: formatRate, lower: false },
  { id: 'ttft', label: 'TTFT p50 there', value: (r) => r.fastest?.ttft_ms?.p50 ?? null, format: formatMs, lower: true },
  { id: 'tpot', label: 'TPOT p50 there', value: (r) => r.fastest?.tpot_ms?.p50 ?? null, format: formatMs, lower: true },
  { id: 'usd', label: '$ per 1M output tokens', value: (r) => r.usd_per_million, format: formatUsd, lower: true },
];

function ThroughputComparison({ rows }: { rows: readonly ServingCompareRow[] }) {
  const levels = useMemo(() => sharedLevels(rows), [rows]);
  const data = useMemo<AlignedData>(() => [levels, ...throughputSeries(rows, levels)], [rows, levels]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => {
      const palette = [c.accent, c.warn, c.ok, c.error, c.muted];
      return {
        scales: { x: { time: false, distr: 3, log: 2, range: () => [Math.min(...levels) / 1.25, Math.max(...levels) * 1.25] }, y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] } },
        axes: [
          { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Concurrency (requests in flight)', labelFont: AXIS_TITLE_FONT, splits: () => levels, values: axisTicks(String) },
          { stroke: c.text, grid: { stroke: c.grid }, ticks: { stroke: c.grid }, label: 'Output tokens/s', labelFont: AXIS_TITLE_FONT, size: 70, values: axisTicks((v) => formatNumber(v, 1)) },
        ],
        legend: { show: true, live: false },
        series: [
          { label: 'Concurrency' },
          ...rows.map((r, i) => {
            const color = palette[i % palette.length] ?? c.accent;
            return { label: runName(r, i), stroke: color, width: 2, ...(i % 2 === 1 ? { dash: [6, 4] } : {}), points: { show: true, size: 7, stroke: color, fill: color } };
          }),
        ],
      };
    },
    [rows, levels],
  );
  return (
    <Chart
      build={build}
      data={data}
      height={240}
      label={`Output tokens per second against concurrency, per run: ${rows.map((r, i) => `${runName(r, i)}: ${r.levels.map((l) => `${l.concurrency} → ${formatRate(l.output_tokens_per_s)}`).join(', ')}`).join('; ')}`}
      testId="chart-compare-serving"
    />
  );
}

/** Finished serving benchmarks side by side: the best level of each, its latencies and its price per million tokens. */
export function ServingCompare() {
  const list = useFinishedJobs('serving-benchmark');
  const sweeps = useSweeps();
  const all = useMemo(
    () => (list.data?.jobs ?? []).map(toServingRow).filter((r): r is ServingCompareRow => r !== null).map((r) => withSweepMachine(r, sweeps.data?.sweeps ?? [])),
    [list.data, sweeps.data],
  );
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(() => all.filter((r) => picked.has(r.job_id)).sort((a, b) => (a.finished_at ?? '').localeCompare(b.finished_at ?? '')), [all, picked]);
  const toggle = (id: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  if (list.isError) return <ErrorState error={list.error} onRetry={() => void list.refetch()} />;
  if (list.isPending) return <Loading height={200} />;
  if (all.length === 0) {
    return (
      <EmptyState title="No finished serving benchmark yet" testId="compare-serving-empty">
        <p>
          Compare needs serving benchmarks that succeeded. <a href={hrefOf(ROUTES.launch)}>Launch one</a> (kind Serving), on an existing backend or a rented GPU, then come back.
        </p>
      </EmptyState>
    );
  }
  const columns: Column<ServingCompareRow>[] = [
    {
      id: 'pick',
      header: <span className="visually-hidden">Compare</span>,
      width: '36px',
      cell: (r) => <input type="checkbox" checked={picked.has(r.job_id)} onChange={() => toggle(r.job_id)} aria-label={`Compare ${r.job_id}`} data-testid={`pick-${r.job_id}`} />,
    },
    { id: 'finished', header: 'Finished', cell: (r) => <RelativeTime iso={r.finished_at} />, sortValue: (r) => r.finished_at },
    { id: 'model', header: 'Model', cell: (r) => r.model, sortValue: (r) => r.model },
    { id: 'engine', header: 'Engine', cell: (r) => r.engine, sortValue: (r) => r.engine },
    { id: 'gpu', header: 'GPU', cell: gpuText },
    { id: 'levels', header: 'Levels', cell: levelsText },
    { id: 'tps', header: 'Most output tokens/s', align: 'right', cell: (r) => formatRate(r.fastest?.output_tokens_per_s), sortValue: (r) => r.fastest?.output_tokens_per_s ?? null },
  ];
  return (
    <>
      <Panel title="Serving runs to compare">
        <p className="muted note-small">{picked.size === 0 ? 'Tick two or more runs.' : `${picked.size} picked.`} The {formatCount(all.length)} newest succeeded serving benchmarks are listed.</p>
        <div className="table-scroll picker">
          <DataTable columns={columns} rows={all} rowKey={(r) => r.job_id} testId="compare-serving-picker" initialSort={{ column: 'finished', direction: 'desc' }} />
        </div>
      </Panel>
      {rows.length === 0 ? (
        <EmptyState title="Nothing picked yet">Pick serving runs above to see them side by side.</EmptyState>
      ) : (
        <>
          {rows.length > GROUP_ABOVE ? (
            <Panel title={`By model × GPU × engine (${formatCount(rows.length, 'run')})`} testId="compare-serving-groups-panel">
              <GroupTable
                groups={groupBy(rows, (r) => `${r.model}|${r.gpu_name ?? ''}|${r.engine}`, (r) => `${r.model} on ${r.gpu_name ?? 'existing backend'} (${r.engine})`)}
                figures={GROUP_FIGURES}
                testId="compare-serving-groups"
              />
              <p className="muted note-small">{GROUP_NOTE}</p>
            </Panel>
          ) : (
            <Panel title={`Side by side (${formatCount(rows.length, 'run')})`} testId="compare-serving-panel">
              <CompareGrid rows={rows} metrics={METRICS} testId="compare-serving-table" />
              <p className="muted note-small">Green: the best value of a row. &ldquo;There&rdquo; is each run&apos;s fastest level; $ per 1M tokens needs a rented machine (its $/h, or its sweep&apos;s).</p>
            </Panel>
          )}
          <Panel title="Output tokens/s against concurrency">
            <ThroughputComparison rows={rows} />
          </Panel>
        </>
      )}
    </>
  );
}
