// No 'electron' import here: the preload passes ipcRenderer in, so the IPC contract test can run
// this exact code with an in-memory stand-in.
import {
  IPC_INVOKE_NAMES,
  IPC_STREAM_CHANNEL,
  IPC_STREAM_CLOSE_CHANNEL,
  IPC_STREAM_OPEN_CHANNEL,
  IpcStreamMessageSchema,
  ipcChannel,
  problemType,
  type IpcInvokeName,
  type IpcStreamMessage,
  type PreloadApi,
  type Problem,
} from '../../shared';

/** The part of Electron's ipcRenderer the preload uses. */
export type IpcRendererLike = {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
};

/**
 * contextBridge copies only the message of an Error, so a failed call rejects with the problem
 * as plain data; the renderer's bridge turns it back into a BenchdeskApiError.
 */
type BridgedProblem = { name: 'BenchdeskApiError'; message: string; problem: Problem };

function bridged(problem: Problem): BridgedProblem {
  return { name: 'BenchdeskApiError', message: problem.detail, problem };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function createPreloadApi(ipc: IpcRendererLike): PreloadApi {
  async function invokeChannel(channel: string, what: string, payload: unknown): Promise<unknown> {
    const result: unknown = await ipc.invoke(channel, payload);
    if (isRecord(result) && result.ok === true) return result.data;
    if (isRecord(result) && result.ok === false && isRecord(result.problem)) throw bridged(result.problem as Problem);
    const detail = `malformed IPC reply to ${what}`;
    throw bridged({ type: problemType('internal_error'), title: 'Internal Server Error', status: 500, detail, error: detail, code: 'internal_error' });
  }

  // One named function per operation and desktop action (never a generic invoke(channel) passthrough).
  const methods = Object.fromEntries(
    IPC_INVOKE_NAMES.map((name: IpcInvokeName) => [name, (payload: unknown) => invokeChannel(ipcChannel(name), name, payload)]),
  );

  return {
    ...methods,
    async openStream(streamId: string, operation: string, input: unknown) {
      await invokeChannel(IPC_STREAM_OPEN_CHANNEL, operation, { stream_id: streamId, operation, input });
    },
    async closeStream(streamId: string) {
      await invokeChannel(IPC_STREAM_CLOSE_CHANNEL, 'stream-close', { stream_id: streamId });
    },
    onStreamMessage(listener: (message: IpcStreamMessage) => void) {
      const handler = (_event: unknown, payload: unknown) => {
        const parsed = IpcStreamMessageSchema.safeParse(payload);
        if (parsed.success) listener(parsed.data);
      };
      ipc.on(IPC_STREAM_CHANNEL, handler);
      return () => {
        ipc.removeListener(IPC_STREAM_CHANNEL, handler);
      };
    },
    transport: 'electron' as const,
  } as unknown as PreloadApi;
}
