// Bundled by scripts/build.mjs into one CJS file (dist/main/preload.cjs): a sandboxed preload can
// require only 'electron', so everything else here (shared/, zod) is inlined.
import './zod-jitless';
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  IPC_JOB_EVENT_CHANNEL,
  IPC_METHOD_NAMES,
  ipcChannel,
  problemType,
  type BenchdeskApi,
  type IpcMethod,
  type JobEvent,
  type Problem,
} from '../../shared';

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

async function invoke(method: IpcMethod, req: unknown): Promise<unknown> {
  const result: unknown = await ipcRenderer.invoke(ipcChannel(method), req);
  if (isRecord(result) && result.ok === true) return result.data;
  if (isRecord(result) && result.ok === false && isRecord(result.problem)) throw bridged(result.problem as Problem);
  const detail = `malformed IPC reply to ${method}`;
  throw bridged({ type: problemType('internal_error'), title: 'Internal Server Error', status: 500, detail, error: detail, code: 'internal_error' });
}

// One named function per IPC method (never a generic invoke(channel) passthrough).
const methods = Object.fromEntries(
  IPC_METHOD_NAMES.map((method) => [method, (req: unknown) => invoke(method, req)]),
) as unknown as Pick<BenchdeskApi, IpcMethod>;

const api: BenchdeskApi = {
  ...methods,
  onJobEvent(listener) {
    const handler = (_event: IpcRendererEvent, payload: unknown) => listener(payload as JobEvent);
    ipcRenderer.on(IPC_JOB_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(IPC_JOB_EVENT_CHANNEL, handler);
    };
  },
  transport: 'electron',
};

contextBridge.exposeInMainWorld('api', api);
