import { useEffect, useState } from 'react';
import { Loading } from '../components/States';
import { useConnection } from '../state/connection';
import { hrefOf, ROUTES } from './routes';
import { loadedPage, loadPage, type ModuleFetch, type PageId, type PageProps } from './pages';

/** While a page's code cannot be fetched, how often to try again (besides when the server is heard again). */
const RETRY_MS = 5_000;

/**
 * A chunk that a page's code imports failed too: Chromium will not fetch it again in this
 * document, so once the server answers and a fresh URL still fails, only a reload helps (once a
 * minute at most: the address keeps the page, so the user lands where they were).
 */
function reloadOnceIfStuck(attempt: number): void {
  if (attempt < 2 || useConnection.getState().link !== 'up' || window.location.protocol === 'file:') return;
  const key = 'benchdesk.chunk-reload';
  const last = Number(sessionStorage.getItem(key) ?? 0);
  if (Date.now() - last < 60_000) return;
  sessionStorage.setItem(key, String(Date.now()));
  window.location.reload();
}

type LoadState = { status: 'loading' } | { status: 'failed'; error: unknown; attempt: number };

/**
 * The code of a page could not be fetched (the server that serves it stopped, in browser mode):
 * the app's frame and banner stay, this says why and what happens next, and the page appears by
 * itself once the server answers.
 */
export function PageLoadProblem({ onRetry, down }: { onRetry: () => void; down: boolean }) {
  return (
    <section className="page" data-testid="page-load-problem" aria-labelledby="page-title">
      <header className="page-head">
        <h1 id="page-title" className="page-title" tabIndex={-1}>
          This page is not here yet
        </h1>
      </header>
      <div className="problem" role="status">
        <p className="problem-title">{down ? 'The benchdesk server is not answering, so this page’s code could not be fetched.' : 'This page’s code could not be fetched.'}</p>
        <p>It appears by itself as soon as the server answers again; nothing you entered elsewhere is lost. The pages you opened before still work.</p>
        <div className="form-actions">
          <button type="button" className="button" onClick={onRetry} data-testid="page-load-retry">
            Try again now
          </button>
          <a className="button" href={hrefOf(ROUTES.overview)}>
            Back to the Overview
          </a>
        </div>
      </div>
    </section>
  );
}

/**
 * One page by id: at once when its code is here (prefetched or visited), else fetched, with the
 * problem above while it cannot be. Retries when the server is heard again, on "Retry now", and
 * every few seconds.
 */
export function PageView<K extends PageId>({ id, props, fetch }: { id: K; props: PageProps[K]; fetch?: ModuleFetch }) {
  const ready = loadedPage(id);
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  const [, setLoadedTick] = useState(0);
  const recoveries = useConnection((s) => s.recoveries);
  const retryNonce = useConnection((s) => s.retryNonce);
  const down = useConnection((s) => s.link === 'down');
  const [manual, setManual] = useState(0);

  useEffect(() => {
    if (loadedPage(id)) return;
    let live = true;
    const attempt = state.status === 'failed' ? state.attempt + 1 : 0;
    const lastError = state.status === 'failed' ? state.error : null;
    loadPage(id, attempt, lastError, fetch).then(
      () => live && setLoadedTick((t) => t + 1),
      (error: unknown) => {
        if (!live) return;
        setState({ status: 'failed', error, attempt });
        if (!fetch) reloadOnceIfStuck(attempt);
      },
    );
    return () => {
      live = false;
    };
    // A new attempt on each recovery, "Retry now", a click, or the timer below (state is read, not watched).
  }, [id, recoveries, retryNonce, manual]);

  const failed = state.status === 'failed';
  useEffect(() => {
    if (!failed) return;
    const t = setTimeout(() => setManual((m) => m + 1), RETRY_MS);
    return () => clearTimeout(t);
  }, [failed, manual]);

  if (ready) {
    const Page = ready;
    return <Page {...props} />;
  }
  if (failed) return <PageLoadProblem down={down} onRetry={() => setManual((m) => m + 1)} />;
  return <Loading label="Loading page…" height={320} />;
}
