// @vitest-environment happy-dom
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { byTestId, click, mount, until, type Mounted } from '../test-mount';
import { useConnection } from '../state/connection';
import { forgetLoadedPages, type ModuleFetch } from './pages';
import { PageView } from './PageView';
import { RouteBoundary } from './RouteBoundary';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
  forgetLoadedPages();
  useConnection.setState({ link: 'up', downSince: null, recoveries: 0 });
});

function Models() {
  return <h1 data-testid="models-page">Models</h1>;
}

describe('a page whose code cannot be fetched', () => {
  it('says so in the frame while the server is down, and appears by itself once the server is heard again', async () => {
    let serverUp = false;
    const attempts: number[] = [];
    const fetch: ModuleFetch = async (_id, attempt) => {
      attempts.push(attempt);
      if (!serverUp) throw new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1:1/ui/assets/ModelsPage-x.js');
      return { ModelsPage: Models };
    };
    act(() => useConnection.getState().setLink('down'));
    view = mount({}, <PageView id="models" props={{}} fetch={fetch} />);
    await until(() => view?.container.querySelector('[data-testid="page-load-problem"]') !== null, 'the load problem');
    expect(byTestId(view.container, 'page-load-problem').textContent).toContain('server is not answering');
    serverUp = true;
    act(() => useConnection.getState().setLink('up'));
    await until(() => view?.container.querySelector('[data-testid="models-page"]') !== null, 'the page after recovery');
    expect(view.container.querySelector('[data-testid="page-load-problem"]')).toBeNull();
    // The retry asked again (with the failure it follows), not the first attempt once more.
    expect(attempts.at(-1)).toBeGreaterThan(0);
  });

  it('"Try again now" asks at once', async () => {
    let serverUp = false;
    const fetch: ModuleFetch = async () => {
      if (!serverUp) throw new TypeError('Failed to fetch dynamically imported module');
      return { ModelsPage: Models };
    };
    view = mount({}, <PageView id="models" props={{}} fetch={fetch} />);
    await until(() => view?.container.querySelector('[data-testid="page-load-retry"]') !== null, 'the retry button');
    serverUp = true;
    click(byTestId(view.container, 'page-load-retry'));
    await until(() => view?.container.querySelector('[data-testid="models-page"]') !== null, 'the page');
  });
});

describe('a page that throws while it renders', () => {
  it('shows what failed with a way back, inside the frame; a new reset key renders it again', async () => {
    let broken = true;
    function Fragile() {
      if (broken) throw new Error('cannot read the job');
      return <p data-testid="fine">fine</p>;
    }
    const original = console.error;
    console.error = () => undefined;
    try {
      view = mount({}, <RouteBoundary resetKey="a"><Fragile /></RouteBoundary>);
      expect(byTestId(view.container, 'page-crashed').textContent).toContain('cannot read the job');
      broken = false;
      click(byTestId(view.container, 'page-crashed-retry'));
      await until(() => view?.container.querySelector('[data-testid="fine"]') !== null, 'the page after Try again');
    } finally {
      console.error = original;
    }
  });
});
