import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, session, shell, type Session, type WebContents } from 'electron';

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

/** Opens a link in the user's browser, but only a well-formed https: URL. */
function openExternalIfHttps(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return;
  }
  if (url.protocol !== 'https:') return;
  // Deferred so the denied navigation/window finishes first (Electron security checklist §14).
  setImmediate(() => {
    shell.openExternal(url.toString()).catch(() => undefined);
  });
}

/** Navigation, new-window and <webview> guards, applied to every webContents the app ever creates. */
function guardWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    openExternalIfHttps(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternalIfHttps(url);
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

export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    title: 'benchdesk',
    show: false,
    backgroundColor: '#f6f7f9',
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
  win.once('ready-to-show', () => win.show());
  win.loadFile(rendererIndexPath()).catch((err: unknown) => {
    console.error(`benchdesk: cannot load the renderer (${rendererIndexPath()}): ${err instanceof Error ? err.message : String(err)}`);
  });
  return win;
}
