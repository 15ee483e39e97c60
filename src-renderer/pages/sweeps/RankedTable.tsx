import type { ReportRow, SweepRecord, SweepReport } from '../../../shared';
import type { Column } from '../../components/DataTable';
import { formatMs, formatPercent, formatRate, formatUsd } from '../../lib/format';
import { Money } from '../../components/Format';
import { cellMeter } from './SweepMatrix';

/** How many ranked rows share each tier: a tier of two or more is a tie. */
function tierSizes(rows: readonly ReportRow[]): Map<number, number> {
  const sizes = new Map<number, number>();
  for (const r of rows) if (r.rank !== null) sizes.set(r.rank, (sizes.get(r.rank) ?? 0) + 1);
  return sizes;
}

/**
 * An accuracy with its 95% interval drawn as an error bar on a 0–100 % track: overlapping bars
 * are why cells share a tier.
 */
export function AccuracyBar({ row }: { row: ReportRow }) {
  if (row.accuracy === null) return <>–</>;
  const [lo, hi] = row.accuracy_ci95 ?? [row.accuracy, row.accuracy];
  const low = lo ?? row.accuracy;
  const high = hi ?? row.accuracy;
  const words = `${formatPercent(row.accuracy)}, 95% interval ${formatPercent(low)} to ${formatPercent(high)}`;
  return (
    <span className="accuracy-bar" title={words}>
      <span className="accuracy-value">{formatPercent(row.accuracy)}</span>
      <svg className="accuracy-track" viewBox="0 0 100 12" width="88" height="12" role="img" aria-label={words} preserveAspectRatio="none">
        <line x1="0" x2="100" y1="6" y2="6" className="accuracy-axis" />
        <line x1={low * 100} x2={high * 100} y1="6" y2="6" className="accuracy-interval" />
        <line x1={low * 100} x2={low * 100} y1="2" y2="10" className="accuracy-interval" />
        <line x1={high * 100} x2={high * 100} y1="2" y2="10" className="accuracy-interval" />
        <circle cx={row.accuracy * 100} cy="6" r="3" className="accuracy-point" />
      </svg>
    </span>
  );
}

/** The ranked table's columns: tiers as ranks (ties shown as ties), accuracy with its interval, costs, serving figures. */
export function rankedColumns(sweep: SweepRecord, report: SweepReport, servingOnly: boolean, withServing: boolean): Column<ReportRow>[] {
  const sizes = tierSizes(report.rows);
  // A running cell's cost still grows: one live figure per screen (the sweep's spend above), so it says "running" here.
  const cost: Column<ReportRow> = {
    id: 'cost',
    header: 'Cost',
    align: 'right',
    cell: (r) => {
      const cell = sweep.cells[r.cell];
      const meter = cell ? cellMeter(sweep, cell) : null;
      return meter ? <span className="muted">running</span> : <Money usd={r.cost_usd} />;
    },
    sortValue: (r) => r.cost_usd,
  };
  const rank: Column<ReportRow> = {
    id: 'rank',
    header: 'Tier',
    width: '64px',
    cell: (r) =>
      r.rank === null ? (
        '–'
      ) : (sizes.get(r.rank) ?? 0) > 1 ? (
        <span title={`tied with ${(sizes.get(r.rank) ?? 1) - 1} other cell(s): their accuracy intervals overlap`} data-testid={`tier-${r.cell}`}>
          {r.rank} <span className="muted">tie</span>
        </span>
      ) : (
        <span data-testid={`tier-${r.cell}`}>{r.rank}</span>
      ),
    sortValue: (r) => r.rank,
  };
  const common: Column<ReportRow>[] = [rank, { id: 'model', header: 'Model', cell: (r) => r.model, sortValue: (r) => r.model }, { id: 'gpu', header: 'GPU', cell: (r) => r.gpu, sortValue: (r) => r.gpu }];
  const status: Column<ReportRow> = {
    id: 'status',
    header: 'Status',
    cell: (r) =>
      r.status !== 'succeeded' ? (
        <span className="muted" title={r.reason ?? undefined}>
          {r.status.replace('_', ' ')}
        </span>
      ) : r.serving_error ? (
        <span className="badge badge-warn" title={r.serving_error}>
          serving failed
        </span>
      ) : r.pareto ? (
        <span className="badge badge-ok">Pareto front</span>
      ) : (
        'scored'
      ),
  };
  if (servingOnly) {
    return [
      ...common,
      { id: 'per-million', header: '$ / 1M output tokens', align: 'right', cell: (r) => formatUsd(r.usd_per_million_output_tokens), sortValue: (r) => r.usd_per_million_output_tokens },
      { id: 'tps', header: 'Output tok/s', align: 'right', cell: (r) => formatRate(r.output_tokens_per_s), sortValue: (r) => r.output_tokens_per_s },
      { id: 'ttft', header: 'TTFT p50', align: 'right', cell: (r) => formatMs(r.ttft_p50_ms), sortValue: (r) => r.ttft_p50_ms },
      cost,
      status,
    ];
  }
  return [
    ...common,
    { id: 'accuracy', header: 'Accuracy (95% interval)', align: 'right', cell: (r) => <AccuracyBar row={r} />, sortValue: (r) => r.accuracy },
    { id: 'correct', header: 'Correct', align: 'right', cell: (r) => (r.passed === null ? '–' : `${r.passed}/${(r.total ?? 0) - (r.errors ?? 0)}${r.errors ? ` (+${r.errors} err)` : ''}`) },
    cost,
    { id: 'per-correct', header: '$ / correct', align: 'right', cell: (r) => formatUsd(r.cost_per_correct_usd), sortValue: (r) => r.cost_per_correct_usd },
    ...(withServing
      ? [
          { id: 'tps', header: 'Output tok/s', align: 'right' as const, cell: (r: ReportRow) => formatRate(r.output_tokens_per_s) },
          { id: 'per-million', header: '$ / 1M tok', align: 'right' as const, cell: (r: ReportRow) => formatUsd(r.usd_per_million_output_tokens) },
        ]
      : []),
    status,
  ];
}

/** The constraints' answer above the table: the cheapest cell that meets them, or what nothing met. */
export function Headline({ report }: { report: SweepReport }) {
  if (!report.headline) return null;
  return (
    <p className={`sweep-headline ${report.headline.met ? 'sweep-headline-met' : 'sweep-headline-unmet'}`} data-testid="sweep-headline">
      <strong>{report.headline.met ? 'Answer:' : 'No cell meets the constraints:'}</strong> {report.headline.text}
    </p>
  );
}
