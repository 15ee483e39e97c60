/** Small text helpers shared by the tools' outputs. */

/** A Date or RFC 3339 string as RFC 3339 (seconds), or null. */
export function isoTime(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
}

export function timeMs(value: Date | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** One line of a message: newlines flattened, length capped. */
export function oneLine(text: string | null | undefined, max = 300): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function qualified(namespace: string | null | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
