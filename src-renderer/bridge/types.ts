import type { BenchdeskClient, DesktopMethod, DesktopRequest, DesktopResponse } from '../../shared';

/** Native dialogs of the desktop app (IPC only). */
export type DesktopApi = { [M in DesktopMethod]: (req: DesktopRequest<M>) => Promise<DesktopResponse<M>> };

/**
 * What every page uses: the typed client (IPC in the app, HTTP in browser mode), which transport
 * it is, and the desktop actions where they exist (null in browser mode).
 */
export type RendererApi = BenchdeskClient & {
  readonly transport: 'electron' | 'http';
  readonly desktop: DesktopApi | null;
};
