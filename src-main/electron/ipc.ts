import path from 'node:path';
import { promises as fs } from 'node:fs';
import { BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { DesktopResponse, Problem } from '../../shared';
import { registerIpcDispatch, type DesktopActions } from '../adapter/ipc-dispatch';
import type { OperationHandlers } from '../adapter';
import { ProblemError } from '../app/problem-error';

export type IpcOptions = {
  handlers: OperationHandlers;
  /** The tenant the desktop app acts as; IPC needs no token, the sender check is the credential. */
  tenantId: string;
  dataDir: string;
  /** Is this frame's URL our renderer document? */
  isAppUrl(url: string): boolean;
  /** Windows the app created; IPC from any other webContents is refused. */
  isAppWindow(win: BrowserWindow): boolean;
  /** Version, runtime and key-storage facts for Settings and About. */
  appInfo(): Promise<DesktopResponse<'getAppInfo'>>;
  log?: (message: string, err?: unknown) => void;
};

function forbidden(detail: string): Problem {
  return { ...new ProblemError(403, 'forbidden_origin', detail).toProblem(), title: 'Forbidden' };
}

/** The desktop-only actions (native dialogs, the data folder, app facts), each bound to the window that asked. */
function desktopActions({ dataDir, appInfo }: Pick<IpcOptions, 'dataDir' | 'appInfo'>): DesktopActions {
  const windowOf = (sender: unknown) => BrowserWindow.fromWebContents(sender as WebContents);
  return {
    async pickKubeconfig(_req, sender) {
      const win = windowOf(sender);
      const options = { title: 'Choose a kubeconfig', properties: ['openFile' as const, 'showHiddenFiles' as const] };
      const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return { path: picked.canceled ? null : (picked.filePaths[0] ?? null) };
    },
    async saveFile(req, sender) {
      const win = windowOf(sender);
      const options = { defaultPath: path.basename(req.suggested_name) };
      const picked = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
      if (picked.canceled || !picked.filePath) return { path: null };
      await fs.writeFile(picked.filePath, req.content, 'utf8');
      return { path: picked.filePath };
    },
    async openDataDir() {
      const failure = await shell.openPath(dataDir);
      return { opened: failure === '', path: dataDir };
    },
    async getAppInfo() {
      return appInfo();
    },
  };
}

/**
 * Electron's side of IPC: the sender check (only our renderer document, in a window we made, top
 * frame only), then the transport-neutral dispatcher calls the operation handlers HTTP uses.
 */
export function registerIpcHandlers(options: IpcOptions): () => void {
  const log = options.log ?? ((message: string, err?: unknown) => console.error(`benchdesk ipc: ${message}`, err ?? ''));
  return registerIpcDispatch<IpcMainInvokeEvent>({
    ipcMain,
    handlers: options.handlers,
    tenantId: options.tenantId,
    desktop: desktopActions(options),
    log,
    checkSender(event) {
      const frame = event.senderFrame;
      if (!frame || frame.parent !== null) return forbidden('IPC is only accepted from the benchdesk window');
      if (!options.isAppUrl(frame.url)) return forbidden('IPC is only accepted from the benchdesk renderer');
      const win = BrowserWindow.fromWebContents(event.sender);
      if (!win || !options.isAppWindow(win)) return forbidden('IPC is only accepted from a benchdesk window');
      return null;
    },
  });
}
