import { Component, type ErrorInfo, type ReactNode } from 'react';
import { hrefOf, ROUTES } from './routes';

type Props = {
  /** A new value (another page, the server heard again) clears the error and renders the page anew. */
  resetKey: string;
  children: ReactNode;
};
type State = { error: Error | null; key: string };

/**
 * Every route's safety net: a page that throws while rendering shows what went wrong, a way to
 * try again and a way back, inside the app's frame (navigation, banner) instead of a blank window.
 */
export class RouteBoundary extends Component<Props, State> {
  override state: State = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('a page failed to render', error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="page" data-testid="page-crashed" aria-labelledby="page-title">
        <header className="page-head">
          <h1 id="page-title" className="page-title" tabIndex={-1}>
            This page could not be shown
          </h1>
        </header>
        <div className="problem" role="alert">
          <p className="problem-title">Something on this page failed while it was drawn.</p>
          <p>The rest of benchdesk works: try again, or go back. If it keeps failing, the browser console has the details.</p>
          <p className="problem-detail">{error.message}</p>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => this.setState({ error: null })} data-testid="page-crashed-retry">
              Try again
            </button>
            <button type="button" className="button" onClick={() => window.history.back()}>
              Go back
            </button>
            <a className="button" href={hrefOf(ROUTES.overview)}>
              Overview
            </a>
          </div>
        </div>
      </section>
    );
  }
}
