import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IPC_STREAM_CHANNEL, ipcChannel, isStreamReset } from '../../shared';
import { registerIpcDispatch } from '../../src-main/adapter/ipc-dispatch';
import { createPreloadApi } from '../../src-main/electron/preload-api';
import { createIpcClient } from '../../src-renderer/bridge/ipc-client';
import { bodies } from '../helpers/handlers';
import { makeBench, removeDir, waitFor, waitForStatus, type TestBench } from '../helpers/bench';
import { forbiddenProblem, memoryIpc } from './transports';

let t: TestBench;
let ipc: ReturnType<typeof memoryIpc>;
let remove: () => void;

beforeEach(async () => {
  t = await makeBench();
  ipc = memoryIpc();
  remove = registerIpcDispatch({
    ipcMain: ipc.ipcMain,
    handlers: t.bd.handlers,
    tenantId: 'default',
    checkSender: (event) => (event.sender === ipc.sender ? null : forbiddenProblem()),
  });
});
afterEach(async () => {
  remove();
  await t.close();
  await removeDir(t.dir);
});

describe('IPC dispatch', () => {
  it('refuses a sender that is not an app window, with a 403 problem, before touching the payload', async () => {
    const reply = await ipc.foreignRenderer.invoke(ipcChannel('listJobs'), { limit: 'not a number' });
    expect(reply).toEqual({ ok: false, problem: expect.objectContaining({ status: 403, code: 'forbidden_origin' }) });
    const opened = await ipc.foreignRenderer.invoke('benchdesk:stream-open', { stream_id: 'x', operation: 'streamEvents', input: {} });
    expect(opened).toMatchObject({ ok: false, problem: { status: 403 } });
    expect(t.bd.engine.bus.listenerCount()).toBe(0);
  });

  it('validates stream requests and desktop actions like any other input', async () => {
    const bad = await ipc.ipcRenderer.invoke('benchdesk:stream-open', { stream_id: 'x', operation: 'deleteEverything', input: {} });
    expect(bad).toMatchObject({ ok: false, problem: { status: 422, errors: [{ path: 'operation' }] } });
    const desktop = await ipc.ipcRenderer.invoke(ipcChannel('pickKubeconfig'), {});
    expect(desktop).toMatchObject({ ok: false, problem: { status: 404 } });
  });

  it('pushes a stream only to the window that opened it, and ends it when the window closes', async () => {
    const api = createIpcClient(createPreloadApi(ipc.ipcRenderer));
    const seen: string[] = [];
    const feed = (async () => {
      for await (const e of api.streamEvents({})) seen.push(isStreamReset(e) ? 'reset' : e.event);
    })();
    await waitFor(() => t.bd.engine.bus.listenerCount() === 1, 'the feed to subscribe');
    const { job_id } = await api.createJob({ kind: 'llm-instance', request: bodies.llm('ok') as never });
    await waitForStatus(t.bd, job_id, 'succeeded');
    await waitFor(() => seen.includes('job.succeeded'), 'the pushed events');
    ipc.destroyWindow();
    await waitFor(() => t.bd.engine.bus.listenerCount() === 0, 'the subscription to end');
    expect(seen).toEqual(expect.arrayContaining(['job.queued', 'job.running', 'job.succeeded']));
    void feed;
  });

  it('reports the stream open once main has subscribed, so the app knows from when nothing is missed', async () => {
    const api = createIpcClient(createPreloadApi(ipc.ipcRenderer));
    const listenersWhenOpen: number[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      for await (const _ of api.streamEvents({}, { signal: stop.signal, onConnection: (state) => state === 'open' && listenersWhenOpen.push(t.bd.engine.bus.listenerCount()) })) void _;
    })();
    await waitFor(() => listenersWhenOpen.length === 1, 'the open report');
    expect(listenersWhenOpen).toEqual([1]);
    stop.abort();
    await reading;
  });

  it('unsubscribes in main when the renderer stops reading', async () => {
    const api = createIpcClient(createPreloadApi(ipc.ipcRenderer));
    const pushed: unknown[] = [];
    ipc.ipcRenderer.on(IPC_STREAM_CHANNEL, (_e, message) => pushed.push(message));
    const stop = new AbortController();
    const reading = (async () => {
      for await (const _ of api.streamEvents({}, { signal: stop.signal })) void _;
    })();
    await waitFor(() => t.bd.engine.bus.listenerCount() === 1, 'the feed to subscribe');
    stop.abort();
    await reading;
    await waitFor(() => t.bd.engine.bus.listenerCount() === 0, 'main to drop the subscription');
    expect(pushed.some((m) => (m as { type: string }).type === 'end')).toBe(true);
  });
});
