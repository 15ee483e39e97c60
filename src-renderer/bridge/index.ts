import { createHttpClient } from '../../shared/client';
import { createIpcClient, missingPreloadApi } from './ipc-client';
import { useSession } from './session';
import { browserTokenEnv, takeBrowserToken } from './token';
import type { RendererApi } from './types';

export { ApiProvider, useApi } from './context';
export type { DesktopApi, RendererApi } from './types';

let instance: RendererApi | undefined;

/**
 * The server sends a heartbeat every second: 2.5 s of silence means it stopped or the connection
 * is dead, and the app says so within 3 s.
 */
export const STREAM_IDLE_TIMEOUT_MS = 2_500;

/** fetch with the session's current token: signing in (or a rotated token) needs no new client. */
const fetchWithSessionToken: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  const token = useSession.getState().token;
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};

/**
 * The one API the app uses: IPC through the preload in Electron, else the typed HTTP client
 * against the page's own origin. A file:// page without a preload is a broken install, never
 * browser mode.
 */
export function getApi(): RendererApi {
  if (instance) return instance;
  const injected = window.api;
  if (injected && injected.transport === 'electron') instance = createIpcClient(injected);
  else if (window.location.protocol === 'file:') instance = missingPreloadApi();
  else {
    useSession.setState({ token: takeBrowserToken(browserTokenEnv()) });
    const client = createHttpClient({ baseUrl: '', token: null, fetch: fetchWithSessionToken, idleTimeoutMs: STREAM_IDLE_TIMEOUT_MS, retry: { initialMs: 1_000, maxMs: 4_000 } });
    instance = Object.assign(client, { transport: 'http' as const, desktop: null });
  }
  return instance;
}
