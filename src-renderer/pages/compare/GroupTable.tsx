import { useMemo } from 'react';
import { formatCount } from '../../lib/format';
import { hrefOf, jobPath } from '../../router/routes';
import { clearlyBest, spreadOf, type Group, type Spread } from './aggregate';

/** A figure of a group's runs: how to read it from a run, how to write it, which way is better. */
export type GroupFigure<R> = { id: string; label: string; value: (r: R) => number | null; format: (v: number) => string; lower: boolean };

function SpreadCell({ spread, format, best, figure }: { spread: Spread | null; format: (v: number) => string; best: boolean; figure: string }) {
  if (!spread) return <td className="right num muted" data-figure={figure}>—</td>;
  return (
    <td className={`right num${best ? ' best' : ''}`} data-figure={figure} title={`${spread.n} runs: mean ${format(spread.mean)}, standard deviation ${format(spread.sd)}`}>
      {format(spread.mean)}
      {spread.n > 1 ? <span className="spread"> ± {format(spread.sd)}</span> : null}
      {best ? <span className="visually-hidden"> (clearly best)</span> : null}
    </td>
  );
}

/** One row per group: its runs (linked), then each figure's mean ± spread, the clear best of a column marked. */
export function GroupTable<R extends { job_id: string }>({ groups, figures, testId }: { groups: readonly Group<R>[]; figures: readonly GroupFigure<R>[]; testId: string }) {
  const table = useMemo(
    () =>
      figures.map((f) => {
        const spreads = groups.map((g) => ({ key: g.key, spread: spreadOf(g.runs.map(f.value)) }));
        return { figure: f, spreads: new Map(spreads.map((s) => [s.key, s.spread])), best: clearlyBest(spreads, f.lower) };
      }),
    [groups, figures],
  );
  return (
    <div className="table-x">
      <table className="table compare-groups" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col" className="right">
              Runs
            </th>
            {figures.map((f) => (
              <th key={f.id} scope="col" className="right">
                {f.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.map((g, i) => (
            <tr key={g.key} data-testid="compare-group" data-group={g.label}>
              <th scope="row">
                <span className="group-number" aria-hidden="true">
                  {i + 1}
                </span>{' '}
                {g.label}
              </th>
              <td className="right num">
                <details className="compare-group-runs">
                  <summary>{formatCount(g.runs.length)}</summary>
                  <ul>
                    {g.runs.map((r) => (
                      <li key={r.job_id}>
                        <a href={hrefOf(jobPath(r.job_id))}>{r.job_id}</a>
                      </li>
                    ))}
                  </ul>
                </details>
              </td>
              {table.map(({ figure, spreads, best }) => (
                <SpreadCell key={figure.id} figure={figure.id} spread={spreads.get(g.key) ?? null} format={figure.format} best={best === g.key} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The note under a group table. */
export const GROUP_NOTE = 'Mean ± standard deviation over each group’s runs. Green: clearly the best of a column, its mean ahead of the next by more than either one’s spread; no mark where the lead is within the noise.';
