import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, nativeImage, screen, session, shell, type NativeImage, type Session, type WebContents } from 'electron';
import { externalUrl } from '../desktop/external-links';
import { MIN_WINDOW_SIZE, restoreWindow, sameWindowState, windowStateToSave, type WindowState } from '../desktop/window-state';

/**
 * The renderer's CSP, sent as a header too (the <meta> in index.html covers file:// loads that
 * bypass webRequest). Keep the two in sync.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

/** Paths inside the app (the asar when packaged): dist/ is laid out by scripts/build.mjs and vite. */
export function rendererIndexPath(): string {
  return path.join(app.getAppPath(), 'dist', 'renderer', 'index.html');
}

export function preloadPath(): string {
  return path.join(app.getAppPath(), 'dist', 'main', 'preload.cjs');
}

/** True only for our own renderer document (any hash/query), compared as parsed file: URLs. */
export function isAppUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  const ours = pathToFileURL(rendererIndexPath());
  return url.protocol === 'file:' && url.host === ours.host && url.pathname === ours.pathname;
}

/** Opens a link in the user's browser: only http(s) URLs with a host and no credentials (external-links.ts). */
export function openExternalLink(raw: string): void {
  const url = externalUrl(raw);
  if (!url) return;
  // Deferred so the denied navigation/window finishes first (Electron security checklist §14).
  setImmediate(() => {
    shell.openExternal(url).catch(() => undefined);
  });
}

/** Navigation, new-window and <webview> guards, applied to every webContents the app ever creates. */
function guardWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    openExternalLink(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternalLink(url);
    return { action: 'deny' };
  });
}

function hardenSession(ses: Session): void {
  // Electron grants permission requests by default; the app needs none.
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
      },
    });
  });
}

/** Call once, before any window exists (the session and webContents hooks must precede loads). */
export function installAppSecurity(): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
  hardenSession(session.defaultSession);
}

/** Where the app's icons live at run time (packed into the asar with the build output). */
export function assetPath(name: string): string {
  return path.join(app.getAppPath(), 'assets', name);
}

/**
 * An icon from assets/. Read through Node's fs, which Electron makes asar-aware, then decoded:
 * nativeImage.createFromPath does not read inside app.asar on every platform. `retina` adds the
 * @2x rendition (macOS). Missing files give an empty image rather than a failed start.
 */
export function loadAsset(name: string, retina?: string): NativeImage {
  try {
    const image = nativeImage.createFromBuffer(readFileSync(assetPath(name)));
    if (retina) image.addRepresentation({ scaleFactor: 2, buffer: readFileSync(assetPath(retina)) });
    return image;
  } catch {
    return nativeImage.createEmpty();
  }
}

export type WindowStateStore = { load(): unknown; save(state: WindowState): void };

/** Saves the window's place at most every 500 ms while it moves, and at once when it closes. */
function trackWindowState(win: BrowserWindow, store: WindowStateStore): void {
  let last: WindowState | undefined;
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(timer);
    timer = undefined;
    if (win.isDestroyed() || win.isMinimized()) return;
    const state = windowStateToSave(win.getNormalBounds(), { maximized: win.isMaximized(), fullscreen: win.isFullScreen() });
    if (sameWindowState(last, state)) return;
    last = state;
    store.save(state);
  };
  const soon = () => {
    timer ??= setTimeout(save, 500);
  };
  win.on('resize', soon);
  win.on('move', soon);
  win.on('maximize', soon);
  win.on('unmaximize', soon);
  win.on('enter-full-screen', soon);
  win.on('leave-full-screen', soon);
  win.on('close', save);
}

export function createMainWindow(stateStore?: WindowStateStore): BrowserWindow {
  // Restored where it was, clamped to the displays that exist now (primary first).
  const primary = screen.getPrimaryDisplay();
  const areas = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  const restored = restoreWindow(stateStore?.load(), areas);
  const win = new BrowserWindow({
    ...restored.bounds,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'benchdesk',
    show: false,
    backgroundColor: '#f6f7f9',
    // Linux shows this in the taskbar; macOS and Windows take the icon from the package.
    ...(process.platform === 'linux' ? { icon: loadAsset('icon.png') } : {}),
    webPreferences: {
      preload: preloadPath(),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: !app.isPackaged,
    },
  });
  // Show only once painted: no white flash, and no half-initialised window to click.
  win.once('ready-to-show', () => {
    if (restored.maximized) win.maximize();
    if (restored.fullscreen) win.setFullScreen(true);
    win.show();
  });
  if (stateStore) trackWindowState(win, stateStore);
  win.loadFile(rendererIndexPath()).catch((err: unknown) => {
    console.error(`benchdesk: cannot load the renderer (${rendererIndexPath()}): ${err instanceof Error ? err.message : String(err)}`);
  });
  return win;
}
