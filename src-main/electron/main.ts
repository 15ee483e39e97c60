import './tuned-runtime';
import path from 'node:path';
import { app, BrowserWindow, dialog } from 'electron';
import type { DesktopResponse } from '../../shared';
import { ConfigError } from '../app/config';
import { logToFile } from '../app/log-destination';
import { API_TOKEN_FILE } from '../app/settings';
import { desktopStatusLine } from '../cli/serve-banner';
import { LOG_FILE } from '../cli/serve';
import { startBenchdesk, VERSION } from '../composition/start';
import type { AboutInfo } from '../desktop/about';
import { countRunningJobs, followRunningJobs, RunningJobsTracker } from '../desktop/running-jobs';
import { DesktopShutdown } from '../desktop/shutdown';
import { DataDirLockedError } from '../store/types';
import { DesktopStore } from './desktop-store';
import { registerIpcHandlers } from './ipc';
import { keyStorageInfo, loadMarketplaceKey, marketplaceKeyPersister } from './key-storage';
import { installAppMenu } from './menu';
import { createStatusIndicator, type StatusIndicator } from './tray';
import { createMainWindow, installAppSecurity, isAppUrl } from './window';

/**
 * Desktop entry (dist/main/electron-main.js). The engine, store and /v1 API are the headless
 * server's own code, started through startBenchdesk(); this file adds the window, IPC, the menu,
 * the tray and badge, the stored settings (electron-store) and the quit sequence.
 */

type Running = Awaited<ReturnType<typeof startBenchdesk>>;

const windows = new Set<BrowserWindow>();
let running: Running | undefined;
let desktopStore: DesktopStore | undefined;
let shutdown: DesktopShutdown | undefined;
let indicator: StatusIndicator | undefined;
let runningJobs = 0;
/** Set once start-up failed: quit attempts then go straight through. */
let startFailed = false;
/** Start-up in progress (until `shutdown` exists). */
let starting: Promise<void> | undefined;

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function log(message: string, err?: unknown): void {
  if (running) running.log.warn(message, err === undefined ? {} : { error: describe(err) });
  else console.error(`benchdesk: ${message}${err === undefined ? '' : `: ${describe(err)}`}`);
}

function openWindow(): BrowserWindow {
  const store = desktopStore;
  const win = createMainWindow(
    store
      ? {
          load: () => store.read().window_state,
          save: (state) => {
            try {
              store.update({ window_state: state });
            } catch (err) {
              log('could not save the window position', err);
            }
          },
        }
      : undefined,
  );
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  return win;
}

/** A second launch, a dock click or the tray: bring the window back (reopening it if needed). */
function focusWindow(): void {
  if (!running || shutdown?.phase === 'closing' || shutdown?.phase === 'closed') return;
  shutdown?.resume();
  const win = [...windows][0];
  if (!win) {
    openWindow();
    return;
  }
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function aboutInfo(): AboutInfo {
  return {
    version: VERSION,
    electron: process.versions.electron,
    chrome: process.versions.chrome,
    node: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    dataDir: running?.config.dataDir ?? app.getPath('userData'),
    apiUrl: running?.apiUrl,
  };
}

async function appInfo(): Promise<DesktopResponse<'getAppInfo'>> {
  const about = aboutInfo();
  return {
    version: about.version,
    electron: about.electron ?? '',
    chrome: about.chrome ?? '',
    node: about.node,
    platform: about.platform,
    arch: about.arch,
    data_dir: about.dataDir,
    settings_file: desktopStore?.path ?? path.join(about.dataDir, 'settings.json'),
    api_url: about.apiUrl ?? null,
    key_storage: await keyStorageInfo(),
  };
}

function showIndicator(): void {
  const phase = shutdown?.phase;
  indicator?.update(runningJobs, phase === 'background' || phase === 'closing' ? phase : 'running');
}

async function start(): Promise<void> {
  installAppSecurity();
  const dataDir = path.resolve(process.env.BENCHDESK_DATA_DIR?.trim() || app.getPath('userData'));
  // The terminal `npm start` ran in shows one line of status; the JSON log goes to the data dir.
  const logFile = path.join(dataDir, LOG_FILE);
  logToFile(logFile);
  try {
    desktopStore = new DesktopStore(dataDir, (message) => log(message));
    // Decrypted before the engine starts: start-up recovery may have to release a machine with it.
    const storedKey = await loadMarketplaceKey(desktopStore, (message) => log(message));
    // electron:true → the composition root configures auth on first start (design §3): a random
    // token, only its hash in settings, the plaintext in the 0600 data-dir file `api-token`.
    running = await startBenchdesk({
      dataDir,
      env: process.env,
      electron: true,
      appMarketplaceKey: { key: storedKey, persist: marketplaceKeyPersister(desktopStore, (message) => log(message)) },
    });
  } catch (err) {
    const detail =
      err instanceof DataDirLockedError
        ? `${err.message}.\n\nAnother benchdesk (app or \`benchdesk serve\`) is using this data folder. Close it, or set BENCHDESK_DATA_DIR to another folder.`
        : err instanceof ConfigError
          ? `Configuration error: ${err.message}`
          : `benchdesk could not start: ${describe(err)}`;
    dialog.showErrorBox('benchdesk', detail);
    startFailed = true;
    app.exit(1);
    return;
  }
  const bd = running;
  console.log(desktopStatusLine({ apiUrl: bd.apiUrl, tokenFile: path.join(bd.config.dataDir, API_TOKEN_FILE), logFile }));

  const removeIpc = registerIpcHandlers({
    handlers: bd.handlers,
    tenantId: bd.tenantId,
    dataDir: bd.config.dataDir,
    isAppUrl,
    isAppWindow: (win) => windows.has(win),
    appInfo,
  });
  const following = new AbortController();

  shutdown = new DesktopShutdown({
    // Every tenant's running jobs: a script's job (HTTP API) rents machines too.
    listRunning: () => bd.store.listJobsByStatus(['running']),
    cancel: (jobId) => bd.engine.cancel(jobId),
    settled: (jobId) => bd.engine.settled(jobId),
    async close() {
      following.abort();
      removeIpc();
      await bd.close();
    },
    async ask(box) {
      const parent = BrowserWindow.getFocusedWindow() ?? [...windows][0];
      const { choices: _choices, ...shown } = box;
      const options = { ...shown, noLink: true };
      return (parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)).response;
    },
    exit: () => {
      indicator?.destroy();
      app.quit();
    },
    onPhase(phase) {
      showIndicator();
      // Keep running in the background: close the windows; the tray (and the API) stay.
      if (phase === 'background') for (const win of windows) win.close();
    },
    onStay() {
      if (windows.size === 0) openWindow();
    },
    log,
  });

  installAppMenu({ about: aboutInfo, dataDir: bd.config.dataDir, focusedWindow: () => BrowserWindow.getFocusedWindow() ?? undefined });
  indicator = createStatusIndicator({ show: focusWindow, quit: () => app.quit() });

  // The running-job count follows the live event feed (no polling).
  const tracker = new RunningJobsTracker({
    count: () => countRunningJobs(bd.client()),
    onChange(n) {
      runningJobs = n;
      showIndicator();
      shutdown?.onRunningCount(n);
    },
    onError: (err) => log('could not count running jobs', err),
  });
  followRunningJobs(bd.client(), tracker, following.signal).catch((err: unknown) => log('the running-job feed ended', err));

  openWindow();
}

// Before 'ready': every renderer is sandboxed, whatever a window's options say.
app.enableSandbox();

// The data dir defaults to userData (design §2). When BENCHDESK_DATA_DIR moves it, Chromium's own
// files and the single-instance lock move with it, so "one app per data folder" holds either way.
if (process.env.BENCHDESK_DATA_DIR?.trim()) app.setPath('userData', path.resolve(process.env.BENCHDESK_DATA_DIR.trim()));

if (!app.requestSingleInstanceLock()) {
  // One app per user: a second launch focuses the first (which owns the data dir and the port).
  app.quit();
} else {
  app.on('second-instance', focusWindow);
  app.on('activate', focusWindow);
  app.on('window-all-closed', () => {
    // macOS apps stay alive without windows (the API keeps serving the CLI); so does an app the
    // user sent to the background, or one that is closing. Elsewhere, closing the last window quits.
    if (process.platform === 'darwin') return;
    if (shutdown && shutdown.phase !== 'running') return;
    app.quit();
  });
  app.on('before-quit', (event) => {
    if (startFailed) return;
    if (!shutdown) {
      // Still starting (start-up recovery may be releasing machines): quit once started.
      if (starting) {
        event.preventDefault();
        void starting.finally(() => app.quit());
      }
      return;
    }
    if (!shutdown.requestQuit()) event.preventDefault();
  });
  // Ctrl+C in a terminal, or the session ending: no one to ask; close the safe way (running jobs
  // are torn down, machines released) and exit only after that.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (shutdown) shutdown.requestQuit({ ask: false });
      // Still starting: let start-up (and its recovery) finish, then close the same way.
      else if (starting) void starting.finally(() => (shutdown ? shutdown.requestQuit({ ask: false }) : app.exit(130)));
      else app.exit(130);
    });
  }
  starting = app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      dialog.showErrorBox('benchdesk', `benchdesk could not start: ${describe(err)}`);
      startFailed = true;
      app.exit(1);
    });
}
