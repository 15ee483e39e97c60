import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { INSTALL_ID_PATTERN } from '../marketplace/labels';
import { APP_SETTINGS_DEFAULTS, AppSettingsSchema, ExtraCatalogEntrySchema, SettingsUpdateSchema, type AppSettingKey, type AppSettings } from '../../shared';
import { redactUrlCredentials } from '../engine/redact';
import { isOutOfSpace, uniqueTempPath } from '../store/atomic-file';
import { InsufficientStorageError } from '../store/types';
import { ProblemError } from './problem-error';

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
/** Where the real default_backend_url lives when it carries credentials (settings.json keeps it masked). */
export const SEALED_BACKEND_URL_FILE = path.join('secrets', 'settings-default-backend-url.json');

/** A masked password (`user:***@`) or user (`***@`) in a URL: what only the sealed file can fill in. */
const MASKED_USERINFO = /:\/\/([^\s/?#@]*:)?\*\*\*@/;
const SealedUrlSchema = z.object({ default_backend_url: z.string() });

/** A new install id: 12 lower-case hex characters (48 random bits). */
export function newInstallId(): string {
  return randomBytes(6).toString('hex');
}

export class SettingsStore {
  private readonly conf: Conf<StoredSettings>;
  /** The rotation in progress: the next waits for it. */
  private rotation: Promise<void> = Promise.resolve();

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
    this.sealPlaintextBackendUrl();
  }

  private get sealedUrlFile(): string {
    return path.join(this.dataDir, SEALED_BACKEND_URL_FILE);
  }

  /**
   * default_backend_url may carry a password (`http://user:pw@host`). Like a job's credentials it is
   * sealed: the real URL goes to a 0600 file under secrets/ (0700), settings.json keeps
   * `http://user:***@host`, and every answer shows the masked form.
   */
  private sealBackendUrl(url: string): string {
    const masked = redactUrlCredentials(url);
    if (masked === url) {
      this.unsealBackendUrl();
      return url;
    }
    const file = this.sealedUrlFile;
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify({ default_backend_url: url })}\n`, { mode: 0o600 });
    return masked;
  }

  private unsealBackendUrl(): void {
    rmSync(this.sealedUrlFile, { force: true });
  }

  /** A settings.json written before sealing existed may hold the password: seal it once. */
  private sealPlaintextBackendUrl(): void {
    const stored = this.conf.get('default_backend_url');
    if (typeof stored !== 'string' || redactUrlCredentials(stored) === stored) return;
    try {
      this.conf.set('default_backend_url', this.sealBackendUrl(stored));
    } catch {
      // A read-only or full disk: still never shown (appSettings masks it); sealed on a later start.
    }
  }

  /** The real default backend URL (credentials included), or null when there is none. */
  private sealedBackendUrl(stored: string): string | null {
    try {
      const sealed = SealedUrlSchema.parse(JSON.parse(readFileSync(this.sealedUrlFile, 'utf8'))).default_backend_url;
      // A file left from an earlier value does not fill in another URL's password.
      return redactUrlCredentials(sealed) === stored ? sealed : null;
    } catch {
      return null;
    }
  }

  /**
   * The URL a request of the app's own tenant means: the saved default backend as shown
   * (`http://user:***@host`) stands for the sealed one with its password; anything else is itself.
   */
  resolveBackendUrl(url: string): string {
    const stored = this.read().default_backend_url;
    if (!stored || url.trim() !== stored || !MASKED_USERINFO.test(stored)) return url;
    return this.sealedBackendUrl(stored) ?? url;
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
    // Never a password, whatever the file holds.
    if (typeof out.default_backend_url === 'string') out.default_backend_url = redactUrlCredentials(out.default_backend_url);
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
    const sealedBefore = before.default_backend_url && MASKED_USERINFO.test(before.default_backend_url) ? this.sealedBackendUrl(before.default_backend_url) : null;
    const url = parsed.default_backend_url;
    if (typeof url === 'string' && redactUrlCredentials(url) === url && MASKED_USERINFO.test(url) && (url !== before.default_backend_url || !sealedBefore)) {
      // `user:***@` is how the saved password is shown; it cannot stand for a new one.
      throw ProblemError.validation([{ path: 'default_backend_url', message: 'the password is hidden (***): type it again to change this URL' }], 'settings');
    }
    return this.write(() => {
      const changed: AppSettingKey[] = [];
      const toSet: Record<string, unknown> = {};
      const deleted: AppSettingKey[] = [];
      for (const [key, raw] of Object.entries(parsed) as [AppSettingKey, unknown][]) {
        if (raw === undefined) continue;
        let value = raw;
        if (key === 'default_backend_url') {
          // The saved URL as shown keeps its sealed password; a new one is sealed first (file before settings.json).
          const keepsSealed = value === before.default_backend_url && sealedBefore !== null;
          const realBefore = sealedBefore ?? before.default_backend_url;
          const realAfter = keepsSealed ? sealedBefore : value;
          if (value === null) this.unsealBackendUrl();
          else if (!keepsSealed) value = this.sealBackendUrl(value as string);
          if (realAfter !== realBefore) changed.push(key);
        } else if (!Object.is(before[key], value)) {
          changed.push(key);
        }
        if (value === null || Object.is(value, APP_SETTINGS_DEFAULTS[key])) deleted.push(key);
        else toSet[key] = value;
      }
      for (const key of deleted) this.conf.delete(key);
      if (Object.keys(toSet).length > 0) this.conf.set(toSet as Partial<StoredSettings>);
      return { settings: this.appSettings(), changed };
    });
  }

  /** Runs a settings write; a full disk is the API's 507 (InsufficientStorageError), not an internal error. */
  private write<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!isOutOfSpace(err)) throw err;
      this.removeTemporaryCopies();
      throw new InsufficientStorageError(this.dataDir, err);
    }
  }

  /**
   * conf writes `settings.json.tmp-<stamp>` and renames it over the file; after a failed write its
   * library removes that copy asynchronously, or not at all if the process exits first. Remove it now.
   */
  private removeTemporaryCopies(): void {
    const prefix = `${path.basename(this.conf.path)}.tmp-`;
    try {
      for (const name of readdirSync(path.dirname(this.conf.path))) {
        if (name.startsWith(prefix)) rmSync(path.join(path.dirname(this.conf.path), name), { force: true });
      }
    } catch {
      // Best effort: a listing that fails leaves nothing worse than before.
    }
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
    const existing = await fsp.readFile(path.join(this.dataDir, API_TOKEN_FILE), 'utf8').then((s) => s.trim(), () => undefined);
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

  /**
   * A new app token. Rotations run one at a time: four at once used to share one temp file, so
   * two renamed each other's copies and the file ended holding a token whose hash was not the one
   * kept. `apply(previousSha256, token)` runs inside the turn (the server swaps the accepted hash
   * there), so the token in the file, the stored hash and the accepted one are always the same.
   */
  rotateApiToken(apply?: (previousSha256: string | undefined, token: string) => void): Promise<string> {
    const turn = this.rotation.then(async () => {
      const previous = this.read().api_token_sha256;
      const token = await this.writeNewApiToken();
      apply?.(previous, token);
      return token;
    });
    this.rotation = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private async writeNewApiToken(): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const file = path.join(this.dataDir, API_TOKEN_FILE);
    // A fresh 0600 file renamed over the old one: a reader never sees a half-written token, and
    // the mode is 0600 even if someone loosened the old file's. The hash is saved between the
    // write and the rename, so a full disk at either write leaves the old token, its file and its
    // hash as they were, and no temporary file behind.
    const tmp = uniqueTempPath(file);
    const previous = this.read();
    let hashSaved = false;
    try {
      await fsp.writeFile(tmp, `${token}\n`, { mode: 0o600, flush: true });
      await fsp.chmod(tmp, 0o600);
      this.write(() => this.set({ api_token_sha256: sha256Hex(token), api_token_rotated_at: new Date().toISOString() }));
      hashSaved = true;
      await fsp.rename(tmp, file);
    } catch (err) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      if (hashSaved) {
        try {
          for (const key of ['api_token_sha256', 'api_token_rotated_at'] as const) {
            const value = previous[key];
            if (value === undefined) this.conf.delete(key);
            else this.conf.set(key, value);
          }
        } catch {
          // The old token still works until a restart (the server holds its hash); the next rotation repairs the file.
        }
      }
      if (isOutOfSpace(err)) throw new InsufficientStorageError(this.dataDir, err);
      throw err;
    }
    return token;
  }
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
