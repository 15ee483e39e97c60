import type { BenchdeskApi } from '../../shared';
import { adoptPreloadApi, missingPreloadApi } from './electron-bridge';
import { createHttpBridge } from './http-bridge';
import { browserTokenEnv, takeBrowserToken } from './token';

export { ApiProvider, useApi } from './context';

let instance: BenchdeskApi | undefined;

/**
 * The one `window.api` the app uses: the preload's in Electron, else the HTTP bridge against the
 * page's own origin. A file:// page without a preload is a broken install, never browser mode.
 */
export function getApi(): BenchdeskApi {
  if (instance) return instance;
  const injected = window.api;
  if (injected && injected.transport === 'electron') instance = adoptPreloadApi(injected);
  else if (window.location.protocol === 'file:') instance = missingPreloadApi();
  else instance = createHttpBridge({ token: takeBrowserToken(browserTokenEnv()) });
  return instance;
}

/** Whether browser mode has a token for the API (no token is fine when auth is disabled). */
export function hasBrowserToken(): boolean {
  return takeBrowserToken(browserTokenEnv()) !== null;
}
