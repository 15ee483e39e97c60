/**
 * Reading plain JSON of unknown shape (Kubernetes objects as recorded) without casts at each step:
 * a missing or mistyped field reads as empty ({}, [], '', 0), which is how kubectl's printers treat
 * it. kubectl's display rules (kube-display.ts) and the replay's Table printers (snapshots/table.ts)
 * read objects with these.
 */

export type Json = Record<string, unknown>;

export function jsonObject(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

export function jsonObjects(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(jsonObject) : [];
}

export function jsonString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A finite number, else 0. */
export function jsonNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
