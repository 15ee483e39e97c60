import { Router } from 'wouter';
import { useHashLocation } from 'wouter/use-hash-location';
import { ConnectionBanner } from './components/ConnectionBanner';
import { Nav } from './components/Nav';
import { ThemeToggle } from './components/ThemeToggle';
import { useLiveFeed } from './queries/live-feed';
import { AppRoutes } from './router/AppRoutes';
import { useApplyTheme } from './state/theme';

/** The shell: hash router (works over file:// in Electron and under /ui/ over http), nav, theme, live feed. */
export function App() {
  useApplyTheme();
  useLiveFeed();
  return (
    <Router hook={useHashLocation}>
      <div className="shell">
        <a className="skip-link" href="#main" onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}>
          Skip to content
        </a>
        <header className="topbar">
          <span className="brand">benchdesk</span>
          <span className="tagline">LLM backends and agents on rented GPUs</span>
          <div className="topbar-right">
            <ThemeToggle />
          </div>
        </header>
        <Nav />
        <main className="content" id="main" tabIndex={-1} data-testid="app-ready">
          <ConnectionBanner />
          <AppRoutes />
        </main>
      </div>
    </Router>
  );
}
