import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime } from '../../components/Format';
import { formatGpus } from '../../lib/format';
import type { CompareRow } from './compare-model';

/** The finished benchmarks to tick, newest first, with the number each picked one has below. */
export function Picker({
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

/** The GPUs a run rented, or that it ran on the user's own server. */
export function gpuText(r: CompareRow): string {
  if (!r.gpu_name) return 'existing backend';
  return formatGpus(r.num_gpus ?? 1, r.gpu_name);
}

