// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobEvent, JobListResponse } from '../../shared';
import { ApiProvider, type RendererApi } from '../bridge';
import { useEventStreamStore } from '../state/event-stream';
import { agentJob, ev } from '../test-helpers';
import { useJobEventStream } from './job-events';
import { useJobList } from './jobs';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function mount(api: RendererApi, element: React.ReactElement): { unmount(): void; container: HTMLElement } {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  act(() => {
    root.render(
      <ApiProvider api={api}>
        <QueryClientProvider client={qc}>{element}</QueryClientProvider>
      </ApiProvider>,
    );
  });
  const unmount = () => act(() => root.unmount());
  cleanups.push(() => container.remove());
  return { unmount, container };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await act(() => new Promise((r) => setTimeout(r, 10)));
};

describe('useJobEventStream', () => {
  it('fills the store from the stream while mounted and stops and forgets on unmount', async () => {
    let aborted = false;
    let release: () => void = () => undefined;
    const api = {
      streamJobEvents: (_input: unknown, options?: { signal?: AbortSignal }) => ({
        async *[Symbol.asyncIterator](): AsyncIterator<JobEvent> {
          yield ev(1, 'job.running', 'info', { job_id: 'j' });
          yield ev(2, 'phase.warmup', 'started', { job_id: 'j' });
          await new Promise<void>((r) => {
            release = r;
            options?.signal?.addEventListener('abort', () => {
              aborted = true;
              r();
            });
          });
        },
      }),
    } as unknown as RendererApi;
    function Probe() {
      useJobEventStream('j', 'running');
      return null;
    }
    const view = mount(api, <Probe />);
    await until(() => (useEventStreamStore.getState().streams.j?.events.length ?? 0) === 2);
    expect(useEventStreamStore.getState().streams.j?.events.map((e) => e.event)).toEqual(['job.running', 'phase.warmup']);
    expect(useEventStreamStore.getState().streams.j?.state).toBe('live');
    view.unmount();
    release();
    expect(aborted).toBe(true);
    expect(useEventStreamStore.getState().streams.j).toBeUndefined();
  });
});

describe('useJobList', () => {
  it('pages with the cursor and passes the filters', async () => {
    const calls: Record<string, unknown>[] = [];
    const api = {
      listJobs: async (input: Record<string, unknown>): Promise<JobListResponse> => {
        calls.push(input);
        return input.cursor ? { jobs: [agentJob('b', 'failed')], next_cursor: null } : { jobs: [agentJob('a', 'failed')], next_cursor: 'c1' };
      },
    } as unknown as RendererApi;
    let result: ReturnType<typeof useJobList> | undefined;
    function Probe() {
      result = useJobList({ status: 'failed' });
      return null;
    }
    mount(api, <Probe />);
    await until(() => result?.data !== undefined);
    expect(result?.hasNextPage).toBe(true);
    await act(async () => {
      await result?.fetchNextPage();
    });
    await until(() => (result?.data?.pages.length ?? 0) === 2);
    expect(result?.data?.pages.flatMap((p) => p.jobs.map((j) => j.job_id))).toEqual(['a', 'b']);
    expect(result?.hasNextPage).toBe(false);
    expect(calls).toEqual([
      { limit: 100, status: 'failed' },
      { limit: 100, status: 'failed', cursor: 'c1' },
    ]);
  });
});
