import { useEffect, type ReactNode } from 'react';
import { Router } from 'wouter';
import { AuthGate } from './components/AuthGate';
import { ConnectionBanner } from './components/ConnectionBanner';
import { Nav } from './components/Nav';
import { ThemeToggle } from './components/ThemeToggle';
import { useLiveFeed } from './queries/live-feed';
import { AppRoutes } from './router/AppRoutes';
import { useHashRoute } from './router/hash-location';
import { prefetchPages } from './router/pages';
import { useApplyTheme } from './state/theme';

/** Navigation and pages, once the API is reachable and (in browser mode) this tab is signed in. */
function SignedIn() {
  useLiveFeed();
  // Every page's code, in the background: a page opened while the server is down still appears.
  useEffect(() => {
    const controller = new AbortController();
    prefetchPages(controller.signal);
    return () => controller.abort();
  }, []);
  return (
    <>
      <Nav />
      <main className="content" id="main" tabIndex={-1} data-testid="app-ready">
        <AppRoutes />
      </main>
    </>
  );
}

/** The sign-in, set-up or "API down" screen, in place of the navigation and the pages. */
function Screen(screen: ReactNode) {
  return (
    <main className="content content-screen" id="main" tabIndex={-1} data-testid="app-gate">
      {screen}
    </main>
  );
}

/** The shell: hash router (works over file:// in Electron and under /ui/ over http), top bar, theme, the gate, the pages. */
export function App() {
  useApplyTheme();
  return (
    <Router hook={useHashRoute}>
      <div className="shell">
        <a
          className="skip-link"
          href="#main"
          onClick={(e) => {
            e.preventDefault();
            document.getElementById('main')?.focus();
          }}
        >
          Skip to content
        </a>
        <header className="topbar">
          <span className="brand">benchdesk</span>
          <span className="tagline">LLM backends and agents on rented GPUs</span>
          <ConnectionBanner />
          <div className="topbar-right">
            <ThemeToggle />
          </div>
        </header>
        <AuthGate frame={Screen}>
          <SignedIn />
        </AuthGate>
      </div>
    </Router>
  );
}
