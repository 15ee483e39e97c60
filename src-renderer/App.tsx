import { HealthPanel } from './components/HealthPanel';
import { Nav } from './components/Nav';
import { PlaceholderPage } from './components/PlaceholderPage';
import { pageInfo } from './state/pages';
import { useUiStore } from './state/ui-store';

export function App() {
  const page = useUiStore((s) => s.page);
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">benchdesk</span>
        <span className="tagline">LLM backend and agent benchmarks on rented GPUs</span>
      </header>
      <Nav />
      <main className="content" data-testid="app-ready">
        {page === 'overview' ? (
          <>
            <h1 className="page-title">Overview</h1>
            <HealthPanel />
          </>
        ) : (
          <PlaceholderPage page={pageInfo(page)} />
        )}
      </main>
    </div>
  );
}
