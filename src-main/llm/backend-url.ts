import { BACKEND_TYPES, type BackendType } from '../../shared/requests';
import { InvalidBackendUrlError, UnknownBackendTypeError } from './errors';

/** Ollama's own default port, used when the user typed neither a scheme nor a port. */
export const DEFAULT_LLMSERVER_PORT = 11434;

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);
// "name:" followed by something other than a port number is a URL scheme ("javascript:", "file:").
// "localhost:11434" must not be read as scheme "localhost", which WHATWG URL would do.
const SCHEME_RE = /^([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))/i;

/**
 * Normalises a user-typed llmserver URL: trims it, adds `http://` when there is no scheme (and
 * Ollama's port 11434 when there is no port either, as `ollama` and ollama-js do), keeps
 * `https://`, lower-cases the host, keeps a path prefix (reverse proxies) but drops trailing
 * slashes. Refuses other schemes, a missing host, and query strings or fragments, since every
 * API path is appended to this base. Userinfo is kept: the client turns it into Basic auth.
 */
export function normaliseBackendUrl(input: string): string {
  const raw = input.trim();
  if (raw === '') throw new InvalidBackendUrlError(input, 'it is empty');

  const scheme = SCHEME_RE.exec(raw)?.[1];
  const hasScheme = scheme !== undefined;
  if (hasScheme && !ALLOWED_PROTOCOLS.has(`${scheme.toLowerCase()}:`)) {
    throw new InvalidBackendUrlError(input, `scheme "${scheme}:" is not allowed; use http:// or https://`);
  }
  if (hasScheme && !/^[a-z]+:\/\//i.test(raw)) {
    throw new InvalidBackendUrlError(input, 'expected a URL like http://host:11434');
  }

  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    throw new InvalidBackendUrlError(input, 'expected a URL like http://host:11434');
  }
  if (url.hostname === '') throw new InvalidBackendUrlError(input, 'it has no host');
  if (url.search !== '' || url.hash !== '') {
    throw new InvalidBackendUrlError(input, 'a query string or fragment is not allowed in a base URL');
  }
  if (!hasScheme && url.port === '') url.port = String(DEFAULT_LLMSERVER_PORT);

  const userinfo = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${userinfo}${url.host}${path}`;
}

/** Splits userinfo off a normalised URL: fetch refuses URLs with credentials. */
export function splitBackendCredentials(url: string): { url: string; authorization?: string } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  const bare = parsed.href.replace(/\/+$/, '');
  return { url: bare, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** The URL as it may be shown, stored or logged: userinfo removed. */
export function displayBackendUrl(url: string): string {
  return splitBackendCredentials(url).url;
}

/** `llmserver` (default) and its synonym `ollama` both mean an Ollama server. */
export function normaliseBackendType(input?: string | null): BackendType {
  const value = (input ?? '').trim().toLowerCase();
  if (value === '') return 'llmserver';
  if ((BACKEND_TYPES as readonly string[]).includes(value)) return 'llmserver';
  throw new UnknownBackendTypeError(input ?? '', BACKEND_TYPES);
}
