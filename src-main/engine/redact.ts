import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SECRET_KEY = /(token|secret|password|api[_-]?key|authorization)/i;
/** Counts of LLM tokens (prompt_tokens, output_tokens, eval tokens) are numbers, not credentials. */
const TOKEN_COUNT_KEY = /_tokens$/i;
const REDACTED = '[redacted]';

// userinfo of a URL with a scheme: greedy up to the last "@" before the path, as URL parsers read
// it (`http://u:p@ss@host` has the password `p@ss`).
const SCHEME_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>\\]*)@/gi;
// A bare `user:password@host` (a backend_url typed without a scheme), standing alone or quoted.
const BARE_USERINFO = /(^|[\s"'(=])([^\s/?#@"'():=]+):([^\s/?#"'<>\\]+)@(?=[^\s@])/g;

/**
 * Masks credentials inside URLs in free text: `http://user:SECRET@host` → `http://user:***@host`
 * (a user name alone may be a token: `http://TOKEN@host` → `http://***@host`). Used on every
 * string that leaves the process: problem details, event messages and labels, log fields.
 */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text
    .replace(SCHEME_USERINFO, (_m, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon >= 0 ? `${scheme}${userinfo.slice(0, colon)}:***@` : `${scheme}***@`;
    })
    .replace(BARE_USERINFO, (m, lead: string, user: string, password: string) => (password === '***' ? m : `${lead}${user}:***@`));
}

/** Shorter secrets are not masked as plain text (they would mask ordinary words); inside URLs they always are. */
const MIN_LITERAL_CHARS = 6;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The user and password strings inside URLs of `text` (the values redactUrlCredentials hides). */
function urlCredentials(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(SCHEME_USERINFO)) {
    const userinfo = m[2] ?? '';
    const colon = userinfo.indexOf(':');
    found.push(colon >= 0 ? userinfo.slice(colon + 1) : userinfo);
  }
  for (const m of text.matchAll(BARE_USERINFO)) found.push(m[3] ?? '');
  return found;
}

/**
 * The one redaction pass for everything that leaves a driver or an upstream error: a job's
 * error and message, its events, its result text, its log lines. URL credentials are masked
 * (redactUrlCredentials), and so is every secret of the job's own request wherever it appears on
 * its own: a driver that prints "password hunter22" or its backend URL must not put the password
 * in the job record, on disk or in the API.
 */
export class Redactor {
  private readonly literals: string[];

  constructor(literals: Iterable<string> = []) {
    const set = new Set<string>();
    for (const literal of literals) {
      for (const form of [literal, decoded(literal), encodeURIComponent(literal)]) if (form.length >= MIN_LITERAL_CHARS && form !== '***') set.add(form);
    }
    // Longest first: a secret that contains another is masked whole.
    this.literals = [...set].sort((a, b) => b.length - a.length);
  }

  /** The secrets of a request as a workflow runs it: passwords and tokens in its URLs, and fields named like secrets. */
  static forRequest(request: unknown): Redactor {
    const literals: string[] = [];
    for (const secret of sealSecrets(request).secrets) {
      if (typeof secret.value !== 'string') continue;
      const inUrls = urlCredentials(secret.value);
      literals.push(...(inUrls.length > 0 ? inUrls : [secret.value]));
    }
    return new Redactor(literals);
  }

  text(value: string): string {
    let out = redactUrlCredentials(value);
    for (const literal of this.literals) if (out.includes(literal)) out = out.split(literal).join('***');
    return out;
  }

  /** Deep copy with every string passed through text(). */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v: unknown) => this.deep(v)) as T;
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.deep(v);
      return out as T;
    }
    return value;
  }
}

/** Deep copy with every string passed through redactUrlCredentials (event labels, log fields). */
export function redactUrlsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactUrlCredentials(value) as T;
  if (Array.isArray(value)) return value.map(redactUrlsDeep) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactUrlsDeep(v);
    return out as T;
  }
  return value;
}

type SecretPath = (string | number)[];
type Sealed = { value: unknown; secrets: { path: SecretPath; value: unknown }[] };

function seal(value: unknown, at: SecretPath, secrets: Sealed['secrets']): unknown {
  if (Array.isArray(value)) return value.map((v, i) => seal(v, [...at, i], secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY.test(k) && !(TOKEN_COUNT_KEY.test(k) && typeof v === 'number') && v != null) {
        secrets.push({ path: [...at, k], value: v });
        out[k] = REDACTED;
      } else {
        out[k] = seal(v, [...at, k], secrets);
      }
    }
    return out;
  }
  if (typeof value === 'string') {
    const masked = redactUrlCredentials(value);
    // A literal "***" password is kept too, so that a masked value always has its file.
    if (masked !== value || hasMasked(value)) secrets.push({ path: at, value });
    return masked;
  }
  return value;
}

/**
 * Splits a request into what may be stored and shown (secret-looking keys replaced, URL
 * credentials masked, recursively) and the secrets taken out, by path.
 */
export function sealSecrets(value: unknown): Sealed {
  const secrets: Sealed['secrets'] = [];
  return { value: seal(value, [], secrets), secrets };
}

/** Copies a request for storage with secret-looking values replaced, recursively. */
export function redactSecrets(value: unknown): unknown {
  return sealSecrets(value).value;
}

function setAt(target: unknown, at: SecretPath, value: unknown): void {
  let node = target as Record<string | number, unknown> | undefined;
  for (const key of at.slice(0, -1)) {
    const next = node?.[key];
    if (!next || typeof next !== 'object') return;
    node = next as Record<string | number, unknown>;
  }
  const last = at[at.length - 1];
  if (node && last !== undefined) node[last] = value;
}

/** Whether a stored request had anything sealed out of it. */
function hasMasked(value: unknown): boolean {
  if (typeof value === 'string') return value === REDACTED || /:\/\/([^\s/?#@]*:)?\*\*\*@/.test(value);
  if (Array.isArray(value)) return value.some(hasMasked);
  if (value && typeof value === 'object') return Object.values(value).some(hasMasked);
  return false;
}

function isSecretFile(value: unknown): value is { path: SecretPath; value: unknown }[] {
  return Array.isArray(value) && value.every((e) => e && typeof e === 'object' && Array.isArray((e as { path?: unknown }).path));
}

export class JobSecretsMissingError extends Error {
  readonly code = 'credentials_missing';
  constructor(jobId: string) {
    super(`the credentials of job ${jobId} are no longer on this machine (secrets/ file missing); submit the job again`);
    this.name = 'JobSecretsMissingError';
  }
}

/**
 * Credentials of jobs (passwords in a backend_url, secret-looking fields) live outside the job
 * record and the journal, in one 0600 file per job under `<dataDir>/secrets/` (0700), named after
 * the job id: the stored record shows `http://user:***@host`, the workflow gets the real value
 * when it runs (after a restart too), and the file is deleted when the job ends.
 */
export class JobSecrets {
  constructor(private readonly dir: string) {}

  fileOf(jobId: string): string {
    return path.join(this.dir, `job-${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  }

  /** Returns the request to store; writes the secrets file first when there is anything to keep. */
  async seal(jobId: string, request: unknown): Promise<Record<string, unknown>> {
    const { value, secrets } = sealSecrets(request);
    if (secrets.length > 0) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(this.fileOf(jobId), `${JSON.stringify(secrets)}\n`, { mode: 0o600 });
    }
    return value as Record<string, unknown>;
  }

  /** The request a workflow runs with: the stored one with its secrets put back. */
  async unseal(jobId: string, stored: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!hasMasked(stored)) return stored;
    let secrets: unknown;
    try {
      secrets = JSON.parse(await readFile(this.fileOf(jobId), 'utf8'));
    } catch {
      throw new JobSecretsMissingError(jobId);
    }
    if (!isSecretFile(secrets)) throw new JobSecretsMissingError(jobId);
    const request = structuredClone(stored) as Record<string, unknown>;
    for (const secret of secrets) setAt(request, secret.path, secret.value);
    return request;
  }

  async discard(jobId: string): Promise<void> {
    await rm(this.fileOf(jobId), { force: true });
  }
}
