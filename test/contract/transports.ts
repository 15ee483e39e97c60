import type { BenchdeskClient, Problem } from '../../shared';
import { createHttpClient } from '../../shared/client';
import { registerIpcDispatch, type IpcMainLike, type IpcSender } from '../../src-main/adapter/ipc-dispatch';
import type { Benchdesk } from '../../src-main/composition/start';
import { createPreloadApi, type IpcRendererLike } from '../../src-main/electron/preload-api';
import { ProblemError } from '../../src-main/app/problem-error';
import { createIpcClient } from '../../src-renderer/bridge/ipc-client';

export type TransportName = 'http' | 'in-process' | 'ipc';

type Listener = (event: unknown, payload: unknown) => void;
type FakeEvent = { sender: IpcSender };

/**
 * Electron's IPC in memory: a stand-in ipcMain and ipcRenderer joined by structured clones (what
 * Electron does to every payload), and one window's webContents as the sender. The renderer side
 * runs the real preload code and the real renderer client; main runs the real dispatcher.
 */
export function memoryIpc() {
  const handlers = new Map<string, (event: FakeEvent, payload: unknown) => Promise<unknown>>();
  const rendererListeners = new Map<string, Set<Listener>>();
  const destroyedListeners: (() => void)[] = [];
  let destroyed = false;
  const sender: IpcSender = {
    send(channel, payload) {
      for (const listener of rendererListeners.get(channel) ?? []) listener({}, structuredClone(payload));
    },
    isDestroyed: () => destroyed,
    once: (_event, listener) => destroyedListeners.push(listener),
    on: () => undefined,
  };
  const ipcMain: IpcMainLike<FakeEvent> = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const rendererFor = (from: IpcSender): IpcRendererLike => ({
    async invoke(channel, payload) {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return structuredClone(await handler({ sender: from }, structuredClone(payload)));
    },
    on(channel, listener) {
      let set = rendererListeners.get(channel);
      if (!set) rendererListeners.set(channel, (set = new Set()));
      set.add(listener);
    },
    removeListener(channel, listener) {
      rendererListeners.get(channel)?.delete(listener);
    },
  });
  return {
    ipcMain,
    sender,
    handlers,
    ipcRenderer: rendererFor(sender),
    /** A webContents that is not one of the app's windows. */
    foreignRenderer: rendererFor({ ...sender, send: () => undefined }),
    destroyWindow() {
      destroyed = true;
      for (const listener of destroyedListeners.splice(0)) listener();
    },
  };
}

export function forbiddenProblem(): Problem {
  return { ...new ProblemError(403, 'forbidden_origin', 'IPC is only accepted from the benchdesk window').toProblem(), title: 'Forbidden' };
}

/** The three clients over one running benchdesk, all as tenant `default`. */
export function threeTransports(bd: Benchdesk & { apiUrl: string }, token: string) {
  const ipc = memoryIpc();
  const removeIpc = registerIpcDispatch({
    ipcMain: ipc.ipcMain,
    handlers: bd.handlers,
    tenantId: 'default',
    checkSender: (event) => (event.sender === ipc.sender ? null : forbiddenProblem()),
  });
  const clients: Record<TransportName, BenchdeskClient> = {
    http: createHttpClient({ baseUrl: bd.apiUrl, token, retry: { initialMs: 50, maxMs: 200 } }),
    'in-process': bd.client('default'),
    ipc: createIpcClient(createPreloadApi(ipc.ipcRenderer)),
  };
  return { clients, ipc, removeIpc };
}
