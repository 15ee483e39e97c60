import { createHash, randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { CatalogEntrySchema } from '../../shared';

/** Settings persisted in the data dir (conf: the same file electron-store would write). */
export const StoredSettingsSchema = z.object({
  /** SHA-256 (hex) of the desktop app's API token; the plaintext lives only in the 0600 `api-token` file. */
  api_token_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  extra_catalog_models: z.array(CatalogEntrySchema).optional(),
  drivers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), z.string().min(1)).optional(),
});
export type StoredSettings = z.infer<typeof StoredSettingsSchema>;

export const API_TOKEN_FILE = 'api-token';

export class SettingsStore {
  private readonly conf: Conf<StoredSettings>;

  constructor(readonly dataDir: string) {
    this.conf = new Conf<StoredSettings>({
      cwd: dataDir,
      configName: 'settings',
      projectVersion: '0.1.0',
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
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

  /**
   * The desktop app always configures auth (design §3): on first start a random token is created,
   * only its hash is kept in settings, and the plaintext goes to a 0600 file the CLI reads.
   */
  async ensureApiToken(): Promise<{ token: string; created: boolean }> {
    const file = path.join(this.dataDir, API_TOKEN_FILE);
    const stored = this.read().api_token_sha256;
    const existing = await readFile(file, 'utf8').then((s) => s.trim(), () => undefined);
    if (existing && stored && sha256Hex(existing) === stored) return { token: existing, created: false };
    return { token: await this.rotateApiToken(), created: true };
  }

  async rotateApiToken(): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const file = path.join(this.dataDir, API_TOKEN_FILE);
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    this.set({ api_token_sha256: sha256Hex(token) });
    return token;
  }
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
