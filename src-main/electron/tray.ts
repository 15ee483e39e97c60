import { app, BrowserWindow, Menu, Tray } from 'electron';
import { badgeText, trayTooltip } from '../desktop/running-jobs';
import { loadAsset } from './window';

export type StatusIndicator = {
  /** The number of running jobs and the app's phase, shown in the tray, the dock and the taskbar. */
  update(running: number, phase: 'running' | 'background' | 'closing'): void;
  destroy(): void;
};

/**
 * The tray icon (all platforms; its tooltip and menu say how many jobs run) and the badge: the
 * dock badge on macOS, the launcher count on Linux desktops that support it (Unity API), and a
 * taskbar overlay on Windows.
 */
export function createStatusIndicator(actions: { show(): void; quit(): void }): StatusIndicator {
  let tray: Tray | undefined;
  try {
    // macOS: a black template image the menu bar tints; elsewhere the coloured app icon.
    const image = process.platform === 'darwin' ? loadAsset('trayTemplate.png', 'trayTemplate@2x.png') : loadAsset('tray.png');
    if (process.platform === 'darwin') image.setTemplateImage(true);
    tray = new Tray(image);
    tray.on('click', actions.show);
  } catch (err) {
    // Some Linux desktops have no status area; the badge and the window title still work.
    console.error(`benchdesk: no tray icon (${err instanceof Error ? err.message : String(err)})`);
  }
  const overlay = process.platform === 'win32' ? loadAsset('overlay-running.png') : undefined;

  const update = (running: number, phase: 'running' | 'background' | 'closing'): void => {
    const text = trayTooltip(running, phase);
    if (tray && !tray.isDestroyed()) {
      tray.setToolTip(text);
      tray.setContextMenu(
        Menu.buildFromTemplate([
          { label: text.replace(/^benchdesk — /, ''), enabled: false },
          { type: 'separator' },
          { label: 'Show benchdesk', click: actions.show, enabled: phase !== 'closing' },
          { label: 'Quit', click: actions.quit, enabled: phase !== 'closing' },
        ]),
      );
    }
    app.setBadgeCount(running);
    if (process.platform === 'darwin') app.dock?.setBadge(badgeText(running));
    if (overlay) {
      for (const win of BrowserWindow.getAllWindows()) win.setOverlayIcon(running > 0 ? overlay : null, running > 0 ? text : '');
    }
  };
  update(0, 'running');
  return {
    update,
    destroy: () => tray?.destroy(),
  };
}
