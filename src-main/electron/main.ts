import { app, dialog, type BrowserWindow } from 'electron';
import { ConfigError } from '../app/config';
import { startBenchdesk } from '../app/start';
import { DataDirLockedError } from '../store/types';
import { registerIpcHandlers } from './ipc';
import { createMainWindow, installAppSecurity, isAppUrl } from './window';

/**
 * Desktop entry (dist/main/electron-main.js). The engine, store and /v1 API are the headless
 * server's own code, started through startBenchdesk(); this file only adds the window and IPC.
 */

type Running = Awaited<ReturnType<typeof startBenchdesk>>;

const windows = new Set<BrowserWindow>();
let running: Running | undefined;
let removeIpc: (() => void) | undefined;
let shutdown: 'no' | 'closing' | 'done' = 'no';

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function openWindow(): BrowserWindow {
  const win = createMainWindow();
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  return win;
}

function focusWindow(): void {
  const win = [...windows][0];
  if (!win) {
    if (running) openWindow();
    return;
  }
  if (win.isMinimized()) win.restore();
  win.focus();
}

async function start(): Promise<void> {
  installAppSecurity();
  const dataDir = process.env.BENCHDESK_DATA_DIR?.trim() || app.getPath('userData');
  try {
    // electron:true → the composition root configures auth on first start (design §3): a random
    // token, only its hash in settings, the plaintext in the 0600 data-dir file `api-token`.
    // The Settings page (desktop-pages step) shows and rotates it through SettingsStore over IPC;
    // nothing in this file stores tokens itself.
    running = await startBenchdesk({ dataDir, env: process.env, electron: true });
  } catch (err) {
    const detail =
      err instanceof DataDirLockedError
        ? `${err.message}.\n\nAnother benchdesk (app or \`benchdesk serve\`) is using this data folder. Close it, or set BENCHDESK_DATA_DIR to another folder.`
        : err instanceof ConfigError
          ? `Configuration error: ${err.message}`
          : `benchdesk could not start: ${describe(err)}`;
    dialog.showErrorBox('benchdesk', detail);
    shutdown = 'done';
    app.exit(1);
    return;
  }
  removeIpc = registerIpcHandlers({
    service: running.service,
    tenantId: running.tenantId,
    isAppUrl,
    isAppWindow: (win) => windows.has(win),
  });
  openWindow();
}

// Before 'ready': every renderer is sandboxed, whatever a window's options say.
app.enableSandbox();

if (!app.requestSingleInstanceLock()) {
  // One app per user: a second launch focuses the first (which owns the data dir and the port).
  app.quit();
} else {
  app.on('second-instance', focusWindow);
  app.on('activate', focusWindow);
  app.on('window-all-closed', () => {
    // macOS apps stay alive without windows (the API keeps serving the CLI); elsewhere, quit.
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    if (shutdown === 'done') return;
    event.preventDefault();
    if (shutdown === 'closing') return;
    shutdown = 'closing';
    removeIpc?.();
    // Let running jobs tear down (instances released) before the process goes; bounded, so a
    // stuck job cannot keep the app alive forever.
    const closing = running?.close() ?? Promise.resolve();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref());
    Promise.race([closing, deadline])
      .catch((err: unknown) => console.error(`benchdesk: shutdown failed: ${describe(err)}`))
      .finally(() => {
        shutdown = 'done';
        app.quit();
      });
  });
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      dialog.showErrorBox('benchdesk', `benchdesk could not start: ${describe(err)}`);
      shutdown = 'done';
      app.exit(1);
    });
}
