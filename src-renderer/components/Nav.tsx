import { Link, useLocation } from 'wouter';
import { NAV_ITEMS, isActive } from '../router/routes';

export function Nav() {
  const [location] = useLocation();
  return (
    <nav className="nav" aria-label="Pages">
      <ul>
        {NAV_ITEMS.map((item) => (
          <li key={item.id}>
            <Link
              href={item.path}
              className="nav-item"
              aria-current={isActive(item, location) ? 'page' : undefined}
              data-testid={`nav-${item.id}`}
            >
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
