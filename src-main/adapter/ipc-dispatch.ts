import {
  DESKTOP_METHODS,
  DESKTOP_METHOD_NAMES,
  IPC_STREAM_CHANNEL,
  IPC_STREAM_CLOSE_CHANNEL,
  IPC_STREAM_OPEN_CHANNEL,
  IpcStreamCloseSchema,
  IpcStreamOpenSchema,
  UNARY_OPERATION_NAMES,
  ipcChannel,
  type DesktopMethod,
  type DesktopRequest,
  type DesktopResponse,
  type IpcResult,
  type IpcStreamMessage,
  type Problem,
} from '../../shared';
import { ProblemError } from '../app/problem-error';
import { problemOf } from './problem-of';
import type { OperationContext, OperationHandlers } from './types';

/** The part of a webContents the dispatcher needs (Electron's, or a test's stand-in). */
export type IpcSender = {
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
  on(event: 'did-navigate', listener: () => void): unknown;
};
export type IpcInvokeEvent<S extends IpcSender = IpcSender> = { sender: S };
/** The part of Electron's ipcMain the dispatcher needs. */
export type IpcMainLike<E extends IpcInvokeEvent> = {
  handle(channel: string, listener: (event: E, payload: unknown) => Promise<IpcResult>): void;
  removeHandler(channel: string): void;
};

export type DesktopActions = { [M in DesktopMethod]: (req: DesktopRequest<M>, sender: IpcSender) => Promise<DesktopResponse<M>> };

export type IpcDispatchOptions<E extends IpcInvokeEvent> = {
  ipcMain: IpcMainLike<E>;
  handlers: OperationHandlers;
  /** The tenant the desktop app acts as: the sender check is the credential, no token. */
  tenantId: string;
  /** null = accepted; else the 403 problem to answer (not our window, a subframe, a foreign URL). */
  checkSender(event: E): Problem | null;
  desktop?: DesktopActions;
  log?: (message: string, err?: unknown) => void;
};

/**
 * Registers the IPC side of the operation table: for every call, check the sender, validate the
 * payload, call the same handler the HTTP route calls. Errors travel as data (IpcResult), so the
 * renderer sees the problem body HTTP would send. Streams are pushed only to the window that
 * opened them and end when it closes, navigates or closes the stream.
 * Returns a function that removes the handlers and ends every open stream.
 */
export function registerIpcDispatch<E extends IpcInvokeEvent>(options: IpcDispatchOptions<E>): () => void {
  const { ipcMain, handlers, tenantId } = options;
  const log = options.log ?? (() => undefined);
  const streams = new Map<IpcSender, Map<string, AbortController>>();
  const watched = new WeakSet<IpcSender>();

  function closeAll(sender: IpcSender): void {
    const open = streams.get(sender);
    streams.delete(sender);
    for (const controller of open?.values() ?? []) controller.abort();
  }

  function streamsOf(sender: IpcSender): Map<string, AbortController> {
    if (!watched.has(sender)) {
      watched.add(sender);
      // A closed window or a reloaded page no longer has the listeners these feed.
      sender.once('destroyed', () => closeAll(sender));
      sender.on('did-navigate', () => closeAll(sender));
    }
    let open = streams.get(sender);
    if (!open) {
      open = new Map();
      streams.set(sender, open);
    }
    return open;
  }

  function failure(err: unknown, what: string): IpcResult {
    if (!(err instanceof ProblemError)) log(`${what} failed`, err);
    return { ok: false, problem: problemOf(err) };
  }

  async function guarded(event: E, what: string, run: () => Promise<unknown>): Promise<IpcResult> {
    const refused = options.checkSender(event);
    if (refused) {
      log(`refused ${what}`);
      return { ok: false, problem: refused };
    }
    try {
      return { ok: true, data: await run() };
    } catch (err) {
      return failure(err, what);
    }
  }

  const channels: string[] = [];
  function on(channel: string, listener: (event: E, payload: unknown) => Promise<IpcResult>): void {
    channels.push(channel);
    ipcMain.handle(channel, listener);
  }

  for (const name of UNARY_OPERATION_NAMES) {
    const handler = handlers[name] as (ctx: OperationContext, input: unknown) => Promise<unknown>;
    on(ipcChannel(name), (event, payload) => guarded(event, name, () => handler({ tenantId }, payload)));
  }

  for (const name of DESKTOP_METHOD_NAMES) {
    on(ipcChannel(name), (event, payload) =>
      guarded(event, name, async () => {
        const action = options.desktop?.[name] as ((req: unknown, sender: IpcSender) => Promise<unknown>) | undefined;
        if (!action) throw new ProblemError(404, 'not_found', `${name} is only available in the desktop app`);
        const parsed = DESKTOP_METHODS[name].req.safeParse(payload ?? {});
        if (!parsed.success) throw ProblemError.validation(parsed.error.issues, name);
        return action(parsed.data, event.sender);
      }),
    );
  }

  on(IPC_STREAM_OPEN_CHANNEL, (event, payload) =>
    guarded(event, 'stream-open', async () => {
      const parsed = IpcStreamOpenSchema.safeParse(payload);
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'stream request');
      const { stream_id, operation, input } = parsed.data;
      const sender = event.sender;
      const open = streamsOf(sender);
      if (open.has(stream_id)) throw new ProblemError(409, 'bad_request', `stream ${stream_id} is already open`);
      const controller = new AbortController();
      const handler = handlers[operation] as (ctx: OperationContext, input: unknown) => Promise<AsyncIterable<unknown>>;
      // Opening fails (404, 422) as the invoke's answer, before anything is pushed.
      const source = await handler({ tenantId, signal: controller.signal }, input);
      open.set(stream_id, controller);
      const push = (message: IpcStreamMessage) => {
        if (!sender.isDestroyed()) sender.send(IPC_STREAM_CHANNEL, message);
      };
      void (async () => {
        let problem: Problem | null = null;
        try {
          for await (const item of source) push({ type: 'item', stream_id, item });
        } catch (err) {
          if (!(err instanceof ProblemError)) log(`${operation} stream failed`, err);
          problem = problemOf(err);
        }
        streams.get(sender)?.delete(stream_id);
        push({ type: 'end', stream_id, problem });
      })();
      return { stream_id };
    }),
  );

  on(IPC_STREAM_CLOSE_CHANNEL, (event, payload) =>
    guarded(event, 'stream-close', async () => {
      const parsed = IpcStreamCloseSchema.safeParse(payload);
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'stream request');
      streams.get(event.sender)?.get(parsed.data.stream_id)?.abort();
      return { closed: true };
    }),
  );

  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
    for (const sender of [...streams.keys()]) closeAll(sender);
  };
}
