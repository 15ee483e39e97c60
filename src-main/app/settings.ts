import { createHash, randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { INSTALL_ID_PATTERN } from '../marketplace/labels';
import { APP_SETTINGS_DEFAULTS, AppSettingsSchema, ExtraCatalogEntrySchema, SettingsUpdateSchema, type AppSettingKey, type AppSettings } from '../../shared';

/** Settings persisted in the data dir (conf: the same file electron-store would write). */
export const StoredSettingsSchema = z.object({
  /** SHA-256 (hex) of the desktop app's API token; the plaintext lives only in the 0600 `api-token` file. */
  api_token_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  extra_catalog_models: z.array(ExtraCatalogEntrySchema).optional(),
  drivers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), z.string().min(1)).optional(),
  /** When the app token was last created or rotated (RFC 3339). */
  api_token_rotated_at: z.string().optional(),
  /**
   * This data dir's install id, created once: the labels of the machines it rents carry it
   * (`benchdesk:<install_id>:<job_id>`), so another install's machines are never taken for its own.
   */
  install_id: z.string().regex(INSTALL_ID_PATTERN, 'an install id is 6–32 lower-case letters and digits').optional(),
  // The Settings page's keys (shared/settings.ts); absent = the default.
  ...AppSettingsSchema.partial().shape,
});
export type StoredSettings = z.infer<typeof StoredSettingsSchema>;

export const API_TOKEN_FILE = 'api-token';

/** A new install id: 12 lower-case hex characters (48 random bits). */
export function newInstallId(): string {
  return randomBytes(6).toString('hex');
}

export class SettingsStore {
  private readonly conf: Conf<StoredSettings>;

  constructor(readonly dataDir: string) {
    this.conf = new Conf<StoredSettings>({
      cwd: dataDir,
      configName: 'settings',
      projectVersion: '0.1.0',
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      // May hold the marketplace key and the token's hash: owner-only, like the rest of the data dir.
      configFileMode: 0o600,
    });
  }

  /** Validated view of the file; a hand-edited invalid file is reported, not silently wiped. */
  read(): StoredSettings {
    const parsed = StoredSettingsSchema.safeParse(this.conf.store);
    if (!parsed.success) {
      throw new Error(`settings file ${this.conf.path} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    return parsed.data;
  }

  set(patch: Partial<StoredSettings>): void {
    this.conf.set(patch);
  }

  /** The Settings page's values, defaults filled in. */
  appSettings(): AppSettings {
    const stored = this.read();
    const out: Record<string, unknown> = { ...APP_SETTINGS_DEFAULTS };
    for (const key of Object.keys(APP_SETTINGS_DEFAULTS) as AppSettingKey[]) {
      if (stored[key] !== undefined) out[key] = stored[key];
    }
    return AppSettingsSchema.parse(out);
  }

  /** Which keys the file sets (the rest are defaults). */
  storedAppKeys(): AppSettingKey[] {
    const stored = this.read();
    return (Object.keys(APP_SETTINGS_DEFAULTS) as AppSettingKey[]).filter((k) => stored[k] !== undefined);
  }

  /**
   * Validates and applies a partial update (null clears an optional key back to its default, which
   * removes it from the file); returns the keys whose value changed. Throws ZodError when invalid,
   * leaving the file untouched.
   */
  updateAppSettings(patch: unknown): { settings: AppSettings; changed: AppSettingKey[] } {
    const parsed = SettingsUpdateSchema.parse(patch);
    const before = this.appSettings();
    const changed: AppSettingKey[] = [];
    const toSet: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(parsed) as [AppSettingKey, unknown][]) {
      if (value === undefined) continue;
      if (!Object.is(before[key], value)) changed.push(key);
      if (value === null || Object.is(value, APP_SETTINGS_DEFAULTS[key])) this.conf.delete(key);
      else toSet[key] = value;
    }
    if (Object.keys(toSet).length > 0) this.conf.set(toSet as Partial<StoredSettings>);
    return { settings: this.appSettings(), changed };
  }

  get filePath(): string {
    return this.conf.path;
  }

  /** The data dir's install id, created and stored on first use; it never changes afterwards. */
  ensureInstallId(): string {
    const existing = this.read().install_id;
    if (existing) return existing;
    const id = newInstallId();
    this.set({ install_id: id });
    return id;
  }

  /** The app token from its 0600 file, when the file matches the stored hash. */
  async readApiToken(): Promise<string | undefined> {
    const stored = this.read().api_token_sha256;
    const existing = await readFile(path.join(this.dataDir, API_TOKEN_FILE), 'utf8').then((s) => s.trim(), () => undefined);
    return existing && stored && sha256Hex(existing) === stored ? existing : undefined;
  }

  /**
   * The desktop app always configures auth (design §3): on first start a random token is created,
   * only its hash is kept in settings, and the plaintext goes to a 0600 file the CLI reads.
   */
  async ensureApiToken(): Promise<{ token: string; created: boolean }> {
    const existing = await this.readApiToken();
    if (existing) return { token: existing, created: false };
    return { token: await this.rotateApiToken(), created: true };
  }

  async rotateApiToken(): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const file = path.join(this.dataDir, API_TOKEN_FILE);
    // A fresh 0600 file renamed over the old one: a reader never sees a half-written token, and
    // the mode is 0600 even if someone loosened the old file's.
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${token}\n`, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, file);
    this.set({ api_token_sha256: sha256Hex(token), api_token_rotated_at: new Date().toISOString() });
    return token;
  }
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
