import { PAGES } from '../state/pages';
import { useUiStore } from '../state/ui-store';

export function Nav() {
  const page = useUiStore((s) => s.page);
  const navigate = useUiStore((s) => s.navigate);
  return (
    <nav className="nav" aria-label="Pages">
      <ul>
        {PAGES.map((p) => (
          <li key={p.id}>
            <button
              type="button"
              className="nav-item"
              aria-current={p.id === page ? 'page' : undefined}
              onClick={() => navigate(p.id)}
              data-testid={`nav-${p.id}`}
            >
              <span>{p.label}</span>
              {p.ready ? null : <span className="soon">later</span>}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
