import { safeStorage } from 'electron';
import { ProblemError } from '../app/problem-error';
import type { PersistMarketplaceKey } from '../app/marketplace-key';
import { keyHint } from '../app/marketplace-key';
import type { DesktopStore } from './desktop-store';

/**
 * The marketplace key at rest: encrypted with Electron safeStorage (macOS Keychain, Windows DPAPI,
 * libsecret/kwallet on Linux), stored base64 in settings.json. Decrypted only here in the main
 * process and handed to the marketplace provider; it never goes to the renderer.
 */

export type KeyStorageInfo = { available: boolean; backend: string | null; strong: boolean };

export async function keyStorageInfo(): Promise<KeyStorageInfo> {
  const available = await safeStorage.isAsyncEncryptionAvailable();
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null;
  // Linux without a keyring falls back to a built-in password: obfuscation, not protection.
  return { available, backend, strong: available && backend !== 'basic_text' };
}

/** The stored key, decrypted; undefined when none is stored or it cannot be decrypted (logged). */
export async function loadMarketplaceKey(store: DesktopStore, log: (message: string) => void): Promise<string | undefined> {
  const stored = store.read().marketplace_key;
  if (!stored) return undefined;
  if (!(await safeStorage.isAsyncEncryptionAvailable())) {
    log('the stored marketplace key cannot be decrypted: OS encryption is not available (set it again in Settings, or use VAST_API_KEY)');
    return undefined;
  }
  try {
    const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(Buffer.from(stored.ciphertext_b64, 'base64'));
    // The OS key was rotated: store it again under the new one.
    if (shouldReEncrypt) await saveEncrypted(store, result);
    return result;
  } catch (err) {
    log(`the stored marketplace key cannot be decrypted (${err instanceof Error ? err.message : String(err)}); set it again in Settings`);
    return undefined;
  }
}

async function saveEncrypted(store: DesktopStore, key: string): Promise<void> {
  const ciphertext = await safeStorage.encryptStringAsync(key);
  store.update({ marketplace_key: { ciphertext_b64: ciphertext.toString('base64'), hint: keyHint(key), saved_at: new Date().toISOString() } });
}

/** What the marketplace key holder calls to save (string) or remove (null) the app's key. */
export function marketplaceKeyPersister(store: DesktopStore, log: (message: string) => void): PersistMarketplaceKey {
  return async (key) => {
    if (key === null) {
      store.update({ marketplace_key: null });
      return;
    }
    const info = await keyStorageInfo();
    if (!info.available) {
      throw new ProblemError(409, 'marketplace_not_configured', 'this system offers no encryption for stored secrets (no keychain or keyring): set VAST_API_KEY in the environment instead');
    }
    if (!info.strong) log(`the marketplace key is stored with safeStorage backend '${info.backend ?? 'unknown'}', which is not a keyring (the file is still owner-only)`);
    await saveEncrypted(store, key);
  };
}
