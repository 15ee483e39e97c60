const SECRET_KEY = /(token|secret|password|api[_-]?key|authorization)/i;

/** Copies a request for storage with secret-looking values replaced, recursively. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && v != null ? '[redacted]' : redactSecrets(v);
    return out;
  }
  return value;
}
