import { lazy, Suspense, useEffect, useRef } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { EmptyState, Loading } from '../components/States';
import { hrefOf, ROUTES } from './routes';

// Each page is its own chunk: the first screen loads only what it shows (charts and markdown are
// heavy and live in the Estimate and Job pages).
const OverviewPage = lazy(() => import('../pages/overview/OverviewPage').then((m) => ({ default: m.OverviewPage })));
const EstimatePage = lazy(() => import('../pages/estimate/EstimatePage').then((m) => ({ default: m.EstimatePage })));
const LaunchPage = lazy(() => import('../pages/launch/LaunchPage').then((m) => ({ default: m.LaunchPage })));
const JobsPage = lazy(() => import('../pages/jobs/JobsPage').then((m) => ({ default: m.JobsPage })));
const JobDetailPage = lazy(() => import('../pages/job-detail/JobDetailPage').then((m) => ({ default: m.JobDetailPage })));
const ModelsPage = lazy(() => import('../pages/models/ModelsPage').then((m) => ({ default: m.ModelsPage })));
const ComparePage = lazy(() => import('../pages/compare/ComparePage').then((m) => ({ default: m.ComparePage })));
const SettingsPage = lazy(() => import('../pages/settings/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const SuitesPage = lazy(() => import('../pages/suites/SuitesPage').then((m) => ({ default: m.SuitesPage })));
const SnapshotPage = lazy(() => import('../pages/suites/SnapshotPage').then((m) => ({ default: m.SnapshotPage })));
const SweepsPage = lazy(() => import('../pages/sweeps/SweepsPage').then((m) => ({ default: m.SweepsPage })));

/**
 * Moves focus to the new page's heading after navigation, so keyboard and screen-reader users land
 * on it. A page may still be loading (its chunk or its data): focus goes to its heading when it
 * appears, unless the user moved focus meanwhile.
 */
export function focusHeadingWhenShown(root: ParentNode & Node, timeoutMs = 5_000): () => void {
  const start = document.activeElement;
  const tryFocus = (): boolean => {
    // The page being left can still be in the document, hidden, while the new one loads (Suspense
    // keeps it until the new one is ready): only a heading on screen counts.
    const heading = [...root.querySelectorAll<HTMLElement>('#page-title')].find((h) => h.getClientRects().length > 0);
    if (!heading) return false;
    // The user clicked or tabbed somewhere in the meantime: leave their focus alone.
    if (document.activeElement !== start && document.activeElement !== document.body) return true;
    heading.focus({ preventScroll: true });
    return document.activeElement === heading;
  };
  if (tryFocus()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (tryFocus()) stop();
  });
  const timer = setTimeout(() => stop(), timeoutMs);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['style', 'hidden'] });
  return stop;
}

function FocusOnNavigate() {
  const [location] = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    return main ? focusHeadingWhenShown(main) : undefined;
  }, [location]);
  return null;
}

function NotFound() {
  const [location] = useLocation();
  return (
    <EmptyState title="No such page" testId="not-found">
      <p>
        Nothing lives at <code>#{location}</code>. Go to the <a href={hrefOf(ROUTES.overview)}>Overview</a> or the{' '}
        <a href={hrefOf(ROUTES.jobs)}>Jobs</a> list.
      </p>
    </EmptyState>
  );
}

/** The pages by hash route (the <Router hook={useHashLocation}> is in App). */
export function AppRoutes() {
  return (
    <>
      <FocusOnNavigate />
      <Suspense fallback={<Loading label="Loading page…" height={320} />}>
        <Switch>
          <Route path={ROUTES.overview} component={OverviewPage} />
          <Route path={ROUTES.estimate} component={EstimatePage} />
          <Route path={ROUTES.launch} component={LaunchPage} />
          <Route path={ROUTES.jobs} component={JobsPage} />
          <Route path={ROUTES.job}>{(params) => <JobDetailPage key={params.id} jobId={decodeURIComponent(params.id)} />}</Route>
          <Route path={ROUTES.models} component={ModelsPage} />
          <Route path={ROUTES.compare} component={ComparePage} />
          <Route path={ROUTES.settings} component={SettingsPage} />
          <Route path={ROUTES.suites} component={SuitesPage} />
          <Route path={ROUTES.snapshot}>{(params) => <SnapshotPage key={params.id} snapshotId={decodeURIComponent(params.id)} />}</Route>
          <Route path={ROUTES.sweeps}>{() => <SweepsPage />}</Route>
          <Route path={ROUTES.sweep}>{(params) => <SweepsPage key={params.id} sweepId={decodeURIComponent(params.id)} />}</Route>
          <Route component={NotFound} />
        </Switch>
      </Suspense>
    </>
  );
}
