import { InvalidCursorError } from './types';

/** Position in the newest-first order: (created_at as epoch ms, creation ordinal). */
export type CursorKey = { ts: number; ord: number };

/**
 * Opaque base64url of the last returned job's sort key. Keys never change and new jobs sort above
 * existing ones, so a cursor keeps pointing at the same place while jobs arrive.
 */
export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([1, key.ts, key.ord])).toString('base64url');
}

export function decodeCursor(cursor: string): CursorKey {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 3 && v[0] === 1 && Number.isSafeInteger(v[1]) && Number.isSafeInteger(v[2])) {
      return { ts: v[1] as number, ord: v[2] as number };
    }
  } catch {
    // Fall through: not our cursor.
  }
  throw new InvalidCursorError(cursor);
}
