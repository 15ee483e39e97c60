import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { JobKind, JobListResponse } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { RelativeTime } from '../../components/Format';
import { hrefOf, jobPath } from '../../router/routes';

/** What Compare's two views (benchmarks, serving runs) share: the finished runs, and runs side by side. */

/** How many finished runs a picker offers (newest first). */
export const PICK_LIMIT = 200;

export function useFinishedJobs(kind: Extract<JobKind, 'benchmark' | 'serving-benchmark'>) {
  const api = useApi();
  return useQuery<JobListResponse, BenchdeskApiError>({
    // Not under ['jobs']: the live feed patches those as paged lists.
    queryKey: ['compare', kind],
    queryFn: ({ signal }) => api.listJobs({ kind, status: 'succeeded', limit: PICK_LIMIT }, { signal }),
    staleTime: 15_000,
  });
}

type Run = { job_id: string; finished_at: string | null };

export type CompareMetric<R> = {
  id: string;
  label: string;
  cell: (r: R) => ReactNode;
  /** For the best-of-row mark: the value and whether lower is better. */
  best?: { value: (r: R) => number | null; lower: boolean };
};

/** The run ids holding the best value of a metric (none when all are equal or missing). */
export function bestOf<R extends Run>(rows: readonly R[], metric: CompareMetric<R>): Set<string> {
  if (!metric.best || rows.length < 2) return new Set();
  const { value, lower } = metric.best;
  const vals = rows.map(value).filter((v): v is number => v !== null);
  if (vals.length < 2 || Math.min(...vals) === Math.max(...vals)) return new Set();
  const target = lower ? Math.min(...vals) : Math.max(...vals);
  return new Set(rows.filter((r) => value(r) === target).map((r) => r.job_id));
}

/** Runs as columns, figures as rows: the classic side-by-side that reads across. */
export function CompareGrid<R extends Run>({ rows, metrics, testId, runTestId }: { rows: readonly R[]; metrics: readonly CompareMetric<R>[]; testId: string; runTestId?: string }) {
  return (
    <div className="table-wrap">
      <table className="table compare-grid" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Figure</span>
            </th>
            {rows.map((r, i) => (
              <th key={r.job_id} scope="col" className="right" data-testid={runTestId}>
                <a href={hrefOf(jobPath(r.job_id))} title={r.job_id}>
                  Run #{i + 1}
                </a>
                <div className="compare-when">
                  <RelativeTime iso={r.finished_at} />
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metrics.map((m) => {
            const best = bestOf(rows, m);
            return (
              <tr key={m.id} data-metric={m.id}>
                <th scope="row">{m.label}</th>
                {rows.map((r) => (
                  <td key={r.job_id} className={`right num${best.has(r.job_id) ? ' best' : ''}`}>
                    {m.cell(r)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
