import { IPC_METHOD_NAMES, JobEventSchema, type BenchdeskApi, type IpcMethod } from '../../shared';
import { clientError, toBenchdeskApiError } from './problems';
import { checkResponse } from './validate';

type Methods = { [M in IpcMethod]: BenchdeskApi[M] };
type LooseMethod = (req: unknown) => Promise<unknown>;

/**
 * Wraps the preload's `window.api`. contextBridge copies only an Error's message, so the preload
 * rejects with the problem as data; here it becomes a real BenchdeskApiError again, and responses
 * and pushed events are checked against the shared schemas like in browser mode.
 */
export function adoptPreloadApi(raw: BenchdeskApi): BenchdeskApi {
  const methods: Partial<Record<IpcMethod, LooseMethod>> = {};
  for (const method of IPC_METHOD_NAMES) {
    const target = raw[method] as LooseMethod | undefined;
    methods[method] = async (req) => {
      if (typeof target !== 'function') {
        throw clientError(500, 'internal_error', `the preload bridge has no ${method}(); preload and renderer are out of date`);
      }
      let data: unknown;
      try {
        data = await target(req);
      } catch (err) {
        throw toBenchdeskApiError(err);
      }
      return checkResponse(method, data, `IPC ${method}`);
    };
  }
  return {
    ...(methods as Methods),
    onJobEvent(listener) {
      return raw.onJobEvent((event: unknown) => {
        const parsed = JobEventSchema.safeParse(event);
        if (parsed.success) listener(parsed.data);
      });
    },
    transport: 'electron',
  };
}

/** What the app gets if the preload failed to load: every call explains the broken install. */
export function missingPreloadApi(): BenchdeskApi {
  const fail = (): Promise<never> =>
    Promise.reject(
      clientError(500, 'internal_error', 'window.api is missing: the Electron preload (dist/main/preload.cjs) did not load'),
    );
  const methods = Object.fromEntries(IPC_METHOD_NAMES.map((method) => [method, fail])) as unknown as Methods;
  return { ...methods, onJobEvent: () => () => undefined, transport: 'electron' };
}
