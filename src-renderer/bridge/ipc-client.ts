import {
  DESKTOP_METHOD_NAMES,
  OPERATIONS,
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  zodIssuesToValidation,
  type BenchdeskClient,
  type CallOptions,
  type IpcStreamMessage,
  type OperationName,
  type PreloadApi,
  type StreamOperationName,
} from '../../shared';
import { clientError, createPushIterable, toBenchdeskApiError, type PushIterable } from '../../shared/client';
import type { DesktopApi, RendererApi } from './types';

type Loose = (input: unknown) => Promise<unknown>;

/** A response that does not match the table is a contract bug between main and renderer: say so. */
function checkOutput(name: OperationName, data: unknown): unknown {
  const parsed = OPERATIONS[name].output.safeParse(data);
  if (parsed.success) return parsed.data;
  const errors = zodIssuesToValidation(parsed.error.issues);
  const summary = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  throw clientError(502, 'upstream_error', `unexpected IPC answer to ${name}: ${summary}`, { errors });
}

/**
 * The BenchdeskClient over the preload's `window.api` (Electron). Calls and streams go to main's
 * operation handlers, the same ones the HTTP API calls; errors come back as the same problems.
 */
export function createIpcClient(preload: PreloadApi): RendererApi {
  const open = new Map<string, PushIterable<unknown>>();
  let unlisten: (() => void) | null = null;
  let nextId = 0;

  function route(message: IpcStreamMessage): void {
    const queue = open.get(message.stream_id);
    if (!queue) return;
    if (message.type === 'item') {
      queue.push(message.item);
      return;
    }
    open.delete(message.stream_id);
    queue.end(message.problem ? toBenchdeskApiError({ problem: message.problem }) : undefined);
  }

  function stream(name: StreamOperationName, input: unknown, options?: CallOptions): AsyncIterable<unknown> {
    return {
      [Symbol.asyncIterator]() {
        unlisten ??= preload.onStreamMessage(route);
        const streamId = `s${Date.now().toString(36)}-${(nextId++).toString(36)}`;
        const queue = createPushIterable<unknown>({
          signal: options?.signal,
          onClose: () => {
            if (open.delete(streamId)) preload.closeStream(streamId).catch(() => undefined);
          },
        });
        open.set(streamId, queue);
        preload
          .openStream(streamId, name, input ?? {})
          // Main has subscribed by the time the invoke answers: from here nothing is missed.
          .then(() => options?.onConnection?.('open'))
          .catch((err: unknown) => {
            open.delete(streamId);
            queue.end(toBenchdeskApiError(err));
          });
        const inner = queue.iterable[Symbol.asyncIterator]();
        return {
          next: async () => {
            const result = await inner.next();
            return result.done ? result : { value: checkOutput(name, result.value), done: false };
          },
          return: () => inner.return?.() ?? Promise.resolve({ value: undefined, done: true }),
        };
      },
    };
  }

  const client: Record<string, unknown> = {};
  for (const name of UNARY_OPERATION_NAMES) {
    const target = preload[name] as unknown as Loose | undefined;
    client[name] = async (input: unknown) => {
      if (typeof target !== 'function') {
        throw clientError(500, 'internal_error', `the preload bridge has no ${name}(); preload and renderer are out of date`);
      }
      let data: unknown;
      try {
        data = await target(input ?? {});
      } catch (err) {
        throw toBenchdeskApiError(err);
      }
      return checkOutput(name, data);
    };
  }
  for (const name of STREAM_OPERATION_NAMES) client[name] = (input: unknown, options?: CallOptions) => stream(name, input, options);

  const desktop: Record<string, unknown> = {};
  for (const name of DESKTOP_METHOD_NAMES) {
    const target = preload[name] as unknown as Loose;
    desktop[name] = async (req: unknown) => {
      try {
        return await target(req);
      } catch (err) {
        throw toBenchdeskApiError(err);
      }
    };
  }
  return Object.assign(client as BenchdeskClient, { transport: 'electron' as const, desktop: desktop as DesktopApi });
}

/** What the app gets if the preload failed to load: every call explains the broken install. */
export function missingPreloadApi(): RendererApi {
  const fail = (): Promise<never> =>
    Promise.reject(clientError(500, 'internal_error', 'window.api is missing: the Electron preload (dist/main/preload.cjs) did not load'));
  const client: Record<string, unknown> = {};
  for (const name of UNARY_OPERATION_NAMES) client[name] = fail;
  for (const name of STREAM_OPERATION_NAMES) {
    client[name] = (): AsyncIterable<never> => ({ [Symbol.asyncIterator]: () => ({ next: fail }) });
  }
  return Object.assign(client as BenchdeskClient, { transport: 'electron' as const, desktop: null });
}
