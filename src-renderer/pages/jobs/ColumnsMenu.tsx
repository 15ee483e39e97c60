import { useUiStore } from '../../state/ui-store';
import { OPTIONAL_COLUMNS, shownColumns, type OptionalColumn } from './job-columns';

/** "Columns": the optional columns to show, or "by window width" (the default). */
export function ColumnsMenu({ width }: { width: number }) {
  const chosen = useUiStore((s) => s.jobColumns);
  const setChosen = useUiStore((s) => s.setJobColumns);
  const shown = new Set<string>(shownColumns(width, chosen));
  const toggle = (id: OptionalColumn) => {
    const now = OPTIONAL_COLUMNS.filter((c) => shown.has(c.id)).map((c) => c.id);
    setChosen(now.includes(id) ? now.filter((c) => c !== id) : [...now, id]);
  };
  return (
    <details className="columns-menu" data-testid="jobs-columns">
      <summary className="button button-small">Columns</summary>
      <div className="columns-menu-body" role="group" aria-label="Columns to show">
        {OPTIONAL_COLUMNS.map((c) => (
          <label key={c.id} className="check">
            <input type="checkbox" checked={shown.has(c.id)} onChange={() => toggle(c.id)} data-testid={`jobs-column-${c.id}`} /> {c.label}
          </label>
        ))}
        <button type="button" className="button button-small" onClick={() => setChosen(null)} disabled={chosen === null} data-testid="jobs-columns-auto">
          By window width
        </button>
      </div>
    </details>
  );
}
