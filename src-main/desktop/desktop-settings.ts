import { z } from 'zod';
import { WindowStateSchema, type WindowState } from './window-state';

/**
 * The keys only the desktop app writes into the data dir's settings.json (through electron-store,
 * in the same conf format the headless server's SettingsStore reads). Everything else in the file
 * belongs to SettingsStore and is left untouched: electron-store sets and deletes single keys.
 */

export const DESKTOP_SETTING_KEYS = ['window_state', 'marketplace_key'] as const;
export type DesktopSettingKey = (typeof DESKTOP_SETTING_KEYS)[number];

/** The marketplace key as Electron safeStorage encrypted it (OS keychain / DPAPI / libsecret). */
export const EncryptedKeySchema = z.object({
  /** base64 of safeStorage.encryptString(key). */
  ciphertext_b64: z.string().min(1).max(8192).regex(/^[A-Za-z0-9+/]+={0,2}$/),
  /** Last four characters, so Settings can show which key is stored without decrypting it. */
  hint: z.string().max(4).nullable(),
  saved_at: z.string(),
});
export type EncryptedKey = z.infer<typeof EncryptedKeySchema>;

export type DesktopSettings = { window_state?: WindowState; marketplace_key?: EncryptedKey };

const SCHEMAS = { window_state: WindowStateSchema, marketplace_key: EncryptedKeySchema } as const;

/**
 * Reads the desktop keys from the whole file's contents. An invalid entry is dropped and reported,
 * never thrown: a hand-edited window position must not stop the app from starting.
 */
export function readDesktopSettings(raw: unknown): { settings: DesktopSettings; issues: string[] } {
  const settings: DesktopSettings = {};
  const issues: string[] = [];
  if (typeof raw !== 'object' || raw === null) return { settings, issues };
  const record = raw as Record<string, unknown>;
  for (const key of DESKTOP_SETTING_KEYS) {
    if (record[key] === undefined) continue;
    const parsed = SCHEMAS[key].safeParse(record[key]);
    if (parsed.success) (settings as Record<string, unknown>)[key] = parsed.data;
    else issues.push(`${key}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ')}`);
  }
  return { settings, issues };
}

/**
 * The change to apply for a patch: keys to set, keys to delete (undefined or null in the patch).
 * Keys outside the desktop's own are refused, so this side can never overwrite the server's.
 */
export function desktopSettingsChange(patch: Record<string, unknown>): { set: Partial<DesktopSettings>; remove: DesktopSettingKey[] } {
  const set: Record<string, unknown> = {};
  const remove: DesktopSettingKey[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (!(DESKTOP_SETTING_KEYS as readonly string[]).includes(key)) throw new Error(`'${key}' is not a desktop setting (the desktop app writes only ${DESKTOP_SETTING_KEYS.join(', ')})`);
    const name = key as DesktopSettingKey;
    if (value === undefined || value === null) {
      remove.push(name);
      continue;
    }
    set[name] = SCHEMAS[name].parse(value);
  }
  return { set: set as Partial<DesktopSettings>, remove };
}
