/** The About box's text (plain, so the same words appear on every platform). */
export type AboutInfo = {
  version: string;
  electron: string | undefined;
  chrome: string | undefined;
  node: string;
  platform: string;
  arch: string;
  dataDir: string;
  apiUrl: string | undefined;
};

export function aboutDetail(info: AboutInfo): string {
  return [
    `Version ${info.version}`,
    `Electron ${info.electron ?? '—'} · Chromium ${info.chrome ?? '—'} · Node ${info.node}`,
    `${info.platform} ${info.arch}`,
    '',
    `Data folder: ${info.dataDir}`,
    info.apiUrl ? `API: ${info.apiUrl}` : 'API: not listening',
  ].join('\n');
}
