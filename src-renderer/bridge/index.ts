import { createHttpClient } from '../../shared/client';
import { createIpcClient, missingPreloadApi } from './ipc-client';
import { browserTokenEnv, takeBrowserToken } from './token';
import type { RendererApi } from './types';

export { ApiProvider, useApi } from './context';
export type { DesktopApi, RendererApi } from './types';

let instance: RendererApi | undefined;

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
  else instance = Object.assign(createHttpClient({ baseUrl: '', token: takeBrowserToken(browserTokenEnv()) }), { transport: 'http' as const, desktop: null });
  return instance;
}

/** Whether browser mode has a token for the API (no token is fine when auth is disabled). */
export function hasBrowserToken(): boolean {
  return takeBrowserToken(browserTokenEnv()) !== null;
}
