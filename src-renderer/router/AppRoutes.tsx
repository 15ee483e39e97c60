import { useEffect, useRef, type ReactNode } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { EmptyState } from '../components/States';
import { useConnection } from '../state/connection';
import { PageView } from './PageView';
import { RouteBoundary } from './RouteBoundary';
import { hrefOf, ROUTES } from './routes';

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

/** A route's page inside its error boundary, reset on another page or when the server is heard again. */
function Guarded({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const recoveries = useConnection((s) => s.recoveries);
  return <RouteBoundary resetKey={`${location}|${recoveries}`}>{children}</RouteBoundary>;
}

const param = (value: string) => decodeURIComponent(value);

/** The pages by hash route (the <Router hook={useHashLocation}> is in App); each page's code is loaded by PageView. */
export function AppRoutes() {
  return (
    <>
      <FocusOnNavigate />
      <Guarded>
        <Switch>
          <Route path={ROUTES.overview}>{() => <PageView id="overview" props={{}} />}</Route>
          <Route path={ROUTES.estimate}>{() => <PageView id="estimate" props={{}} />}</Route>
          <Route path={ROUTES.launch}>{() => <PageView id="launch" props={{}} />}</Route>
          <Route path={ROUTES.jobs}>{() => <PageView id="jobs" props={{}} />}</Route>
          <Route path={ROUTES.job}>{(params) => <PageView key={params.id} id="job" props={{ jobId: param(params.id) }} />}</Route>
          <Route path={ROUTES.models}>{() => <PageView id="models" props={{}} />}</Route>
          <Route path={ROUTES.compare}>{() => <PageView id="compare" props={{}} />}</Route>
          <Route path={ROUTES.settings}>{() => <PageView id="settings" props={{}} />}</Route>
          <Route path={ROUTES.suites}>{() => <PageView id="suites" props={{}} />}</Route>
          <Route path={ROUTES.snapshots}>{() => <PageView id="snapshots" props={{}} />}</Route>
          <Route path={ROUTES.snapshot}>{(params) => <PageView key={params.id} id="snapshot" props={{ snapshotId: param(params.id) }} />}</Route>
          <Route path={ROUTES.sweeps}>{() => <PageView id="sweeps" props={{}} />}</Route>
          <Route path={ROUTES.sweep}>{(params) => <PageView key={params.id} id="sweeps" props={{ sweepId: param(params.id) }} />}</Route>
          <Route component={NotFound} />
        </Switch>
      </Guarded>
    </>
  );
}
