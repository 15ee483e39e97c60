/**
 * Which links the app hands to the system browser (shell.openExternal): http and https only, with
 * a host and no embedded credentials. Anything else (file:, javascript:, custom schemes that could
 * launch other programs, smb: shares that leak NTLM hashes) is dropped. Returns the normalised URL.
 */
const ALLOWED_PROTOCOLS = new Set(['https:', 'http:']);

export function externalUrl(raw: string): string | null {
  if (typeof raw !== 'string' || raw.length > 8192) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) return null;
  if (!url.hostname) return null;
  if (url.username || url.password) return null;
  return url.toString();
}
