/**
 * Credentials inside free text (event and termination messages, annotations, log lines): what a
 * snapshot masks wherever a string may carry one. Every pattern is linear in the text's length:
 * no unbounded quantifier is followed by something it would have to give characters back to, so
 * a hostile 256 KiB log line costs one pass, never a backtracking storm (issue 34 item 1's lesson).
 */

export const MASK = '***';

/** `scheme://user:password@` and `scheme://longtoken@`: the password (or the token) is masked, the user and host stay. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#@"'<>\\]{1,512})@/gi;
/** `password=…`, `DB_PASSWORD: …`, `api_key="…"`, `client-secret=…`, `token: …` (case-insensitive). */
const KEYED_VALUE = /(pass(?:word|wd)|secret|token|api[_-]?key|access[_-]?key|credentials?)([\w.-]{0,40})(\s{0,4}[=:]\s{0,4})(["']?)([^\s"'<>,;&]{1,4096})/gi;
/** `Authorization: Bearer …`, `bearer …` */
const BEARER = /\b(bearer|basic)(\s{1,4})([A-Za-z0-9._~+/=-]{8,4096})/gi;
/** Token shapes that are credentials on their own, wherever they stand. */
const TOKEN_SHAPES = [
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g, // GitHub
  /\bxox[abprs]-[A-Za-z0-9-]{10,255}/g, // Slack
  /\bsk-[A-Za-z0-9_-]{20,255}/g, // OpenAI-style API keys
  /\beyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,4096}/g, // JWT
];
const PRIVATE_KEY = /-----BEGIN ([A-Z ]{0,40})PRIVATE KEY-----[\s\S]{0,16384}?-----END \1PRIVATE KEY-----/g;

/** A user name alone (`https://TOKEN@host`) is masked when it is long enough to be a token rather than `git` or `admin`. */
const MIN_TOKEN_USER = 12;

function maskUserinfo(_m: string, scheme: string, userinfo: string): string {
  const colon = userinfo.indexOf(':');
  if (colon >= 0) return userinfo.slice(colon + 1) === MASK ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:${MASK}@`;
  return userinfo.length >= MIN_TOKEN_USER && userinfo !== MASK ? `${scheme}${MASK}@` : `${scheme}${userinfo}@`;
}

/** Cheap test first: most strings hold none of the characters a credential pattern needs. */
const MAYBE = /[@=:]|bearer|basic|AKIA|gh[pousr]_|xox|sk-|eyJ|PRIVATE KEY/i;

/** `text` with every credential pattern masked (the same text when there is none). */
export function maskCredentialText(text: string): string {
  if (text.length < 8 || !MAYBE.test(text)) return text;
  let out = text;
  if (out.includes('@')) out = out.replace(URL_USERINFO, maskUserinfo);
  if (out.includes('=') || out.includes(':')) {
    out = out.replace(KEYED_VALUE, (m, key: string, rest: string, sep: string, quote: string, value: string) =>
      // A count (`prompt_tokens: 512`) is no credential.
      value === MASK || /^\d+$/.test(value) ? m : `${key}${rest}${sep}${quote}${MASK}`,
    );
  }
  out = out.replace(BEARER, (m, scheme: string, space: string, value: string) => (value === MASK ? m : `${scheme}${space}${MASK}`));
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, MASK);
  if (out.includes('PRIVATE KEY-----')) out = out.replace(PRIVATE_KEY, (_m, kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----${MASK}-----END ${kind}PRIVATE KEY-----`);
  return out;
}
