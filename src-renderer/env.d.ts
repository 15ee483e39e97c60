import type { PreloadApi } from '../shared';

declare global {
  interface Window {
    /** Set by the Electron preload (contextBridge); absent in a plain browser. */
    readonly api?: PreloadApi;
  }
}
