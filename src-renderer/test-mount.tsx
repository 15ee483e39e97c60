import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiProvider, type RendererApi } from './bridge';

/** Component tests (happy-dom): a tree mounted with a fake API and its own query cache. */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export type Mounted = { container: HTMLElement; unmount(): void };

/** `api`: the operations the tree calls (fakes take the inputs they expect, so this is loosely typed). */
export function mount(api: object, element: ReactElement): Mounted {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  act(() => {
    root.render(
      <ApiProvider api={{ transport: 'http', desktop: null, ...api } as unknown as RendererApi}>
        <QueryClientProvider client={qc}>{element}</QueryClientProvider>
      </ApiProvider>,
    );
  });
  return {
    container,
    unmount: () => {
      act(() => root.unmount());
      container.remove();
    },
  };
}

/** Waits (up to ~2 s) for a condition the tree reaches asynchronously. */
export async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 10)));
  }
  throw new Error(`timed out waiting for ${what}; the page shows: ${document.body.textContent?.slice(0, 600)}`);
}

export function byTestId<T extends HTMLElement = HTMLElement>(root: ParentNode, id: string): T {
  const el = root.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`no [data-testid="${id}"]; the page shows: ${document.body.textContent?.slice(0, 600)}`);
  return el;
}

/** Clicks like a user (inside act, so the resulting renders are flushed). */
export function click(el: HTMLElement): void {
  act(() => el.click());
}

/** Types a value into an input or select the way React sees it. */
export function change(el: HTMLInputElement | HTMLSelectElement, value: string): void {
  const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
  act(() => {
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}
