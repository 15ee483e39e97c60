/**
 * The options the desktop app's electron-store opens settings.json with. They match the headless
 * server's SettingsStore (src-main/app/settings.ts: conf, `cwd` = data dir, `configName:
 * 'settings'`), so both read and write one file in one format; electron-store calls the name
 * `name`. No schema, defaults or migrations here: each side validates only its own keys, and
 * `clearInvalidConfig: false` means a hand-broken file is reported, never wiped.
 */
export const SETTINGS_FILE_NAME = 'settings';

export function desktopStoreOptions(dataDir: string) {
  return {
    cwd: dataDir,
    name: SETTINGS_FILE_NAME,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
    // Holds the token's hash and the encrypted marketplace key: owner-only.
    configFileMode: 0o600,
  } as const;
}
