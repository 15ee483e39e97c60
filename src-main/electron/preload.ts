// Bundled by scripts/build.mjs into one CJS file (dist/main/preload.cjs): a sandboxed preload can
// require only 'electron', so everything else here (shared/, zod) is inlined.
import './zod-jitless';
import { contextBridge, ipcRenderer } from 'electron';
import { createPreloadApi } from './preload-api';

// Fail closed: the bridge exists only in a sandboxed, context-isolated renderer, so a window
// created with weaker options gets no API at all (and the e2e suite can tell from outside).
declare const process: { readonly sandboxed?: boolean; readonly contextIsolated?: boolean };
if (process.sandboxed !== true || process.contextIsolated !== true) {
  throw new Error('benchdesk preload: refusing to expose window.api without sandbox and context isolation');
}
contextBridge.exposeInMainWorld('api', createPreloadApi(ipcRenderer));
