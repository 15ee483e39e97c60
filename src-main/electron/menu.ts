import { app, dialog, Menu, shell, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import { aboutDetail, type AboutInfo } from '../desktop/about';
import { openExternalLink } from './window';

export type MenuActions = {
  about(): AboutInfo;
  dataDir: string;
  focusedWindow(): BrowserWindow | undefined;
};

/** The About box: version, runtime, data folder and API address, on every platform. */
export async function showAbout(info: AboutInfo, parent?: BrowserWindow): Promise<void> {
  const options = { type: 'info' as const, title: 'About benchdesk', message: `benchdesk ${info.version}`, detail: aboutDetail(info), buttons: ['OK'] };
  if (parent) await dialog.showMessageBox(parent, options);
  else await dialog.showMessageBox(options);
}

/**
 * The application menu. Edit roles are what make copy and paste work in text fields on macOS;
 * reload and the developer tools exist only in unpackaged builds.
 */
export function installAppMenu(actions: MenuActions): void {
  const isMac = process.platform === 'darwin';
  const about: MenuItemConstructorOptions = {
    label: 'About benchdesk',
    click: () => void showAbout(actions.about(), actions.focusedWindow()),
  };
  const openDataDir: MenuItemConstructorOptions = {
    label: 'Open Data Folder',
    click: () => void shell.openPath(actions.dataDir),
  };
  const template: MenuItemConstructorOptions[] = [
    ...(isMac
      ? [
          {
            label: app.name,
            submenu: [about, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }],
          } satisfies MenuItemConstructorOptions,
        ]
      : []),
    {
      label: 'File',
      submenu: [openDataDir, { type: 'separator' }, isMac ? { role: 'close' } : { role: 'quit' }],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...(app.isPackaged ? [] : ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] satisfies MenuItemConstructorOptions[])),
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        ...(isMac ? [] : [about, { type: 'separator' } satisfies MenuItemConstructorOptions]),
        { label: 'Vast.ai Console (API keys)', click: () => openExternalLink('https://console.vast.ai/') },
        { label: 'Ollama Documentation', click: () => openExternalLink('https://github.com/ollama/ollama/tree/main/docs') },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
