import { useMemo, useState, type ReactNode } from 'react';

export type Column<Row> = {
  id: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Makes the column sortable by this value. */
  sortValue?: (row: Row) => number | string | null;
  align?: 'left' | 'right';
  /** A CSS width (e.g. '120px', '20%'). */
  width?: string;
};

export type SortState = { column: string; direction: 'asc' | 'desc' };

/**
 * A sortable table for small lists (up to a few hundred rows: offers, comparisons). Headers are
 * buttons, so sorting works from the keyboard; aria-sort tells screen readers the order.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  initialSort,
  rowClassName,
  caption,
  testId,
  empty,
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  initialSort?: SortState;
  rowClassName?: (row: Row) => string | undefined;
  caption?: ReactNode;
  testId?: string;
  empty?: ReactNode;
}) {
  const [sort, setSort] = useState<SortState | undefined>(initialSort);
  const sorted = useMemo(() => {
    const col = sort ? columns.find((c) => c.id === sort.column) : undefined;
    if (!sort || !col?.sortValue) return rows;
    const get = col.sortValue;
    const dir = sort.direction === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => {
      const va = get(a);
      const vb = get(b);
      if (va === vb) return 0;
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * dir;
    });
  }, [rows, columns, sort]);

  const toggle = (id: string) =>
    setSort((s) => (s?.column === id ? { column: id, direction: s.direction === 'asc' ? 'desc' : 'asc' } : { column: id, direction: 'asc' }));

  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        {caption ? <caption>{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) => {
              const active = sort?.column === c.id;
              return (
                <th
                  key={c.id}
                  scope="col"
                  style={c.width ? { width: c.width } : undefined}
                  className={c.align === 'right' ? 'right' : undefined}
                  aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : c.sortValue ? 'none' : undefined}
                >
                  {c.sortValue ? (
                    <button type="button" className="sort-button" onClick={() => toggle(c.id)} data-testid={`sort-${c.id}`}>
                      {c.header}
                      <span className="sort-mark" aria-hidden="true">
                        {active ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
                      </span>
                    </button>
                  ) : (
                    c.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.length === 0 && empty ? (
            <tr>
              <td colSpan={columns.length}>{empty}</td>
            </tr>
          ) : null}
          {sorted.map((row) => (
            <tr key={rowKey(row)} className={rowClassName?.(row)}>
              {columns.map((c) => (
                <td key={c.id} className={c.align === 'right' ? 'right num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
