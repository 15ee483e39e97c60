import type { JobSort } from '../../shared';
import { InvalidCursorError } from './types';

/** Position in creation order: (created_at as epoch ms, creation ordinal). */
export type CursorKey = { ts: number; ord: number };

/** Position in a sort order: the sorted value (null: the job has none) and the creation ordinal. */
export type ListPosition = { value: number | null; ord: number };

/**
 * Opaque base64url of the last returned job's position in the list's order. Newest first (the
 * default) keeps the original form `[1, ts, ord]`: keys never change and new jobs sort above
 * existing ones, so such a cursor keeps pointing at the same place while jobs arrive. Other orders
 * carry their sort, `[2, sort, value, ord]`, and are refused under another sort.
 */
export function encodeCursor(sort: JobSort, pos: ListPosition): string {
  const body = sort === '-created' ? [1, pos.value, pos.ord] : [2, sort, pos.value, pos.ord];
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodeCursor(cursor: string, sort: JobSort): ListPosition {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v)) {
      if (sort === '-created' && v.length === 3 && v[0] === 1 && Number.isSafeInteger(v[1]) && Number.isSafeInteger(v[2])) {
        return { value: v[1] as number, ord: v[2] as number };
      }
      if (v.length === 4 && v[0] === 2 && v[1] === sort && (v[2] === null || (typeof v[2] === 'number' && Number.isFinite(v[2]))) && Number.isSafeInteger(v[3])) {
        return { value: v[2] as number | null, ord: v[3] as number };
      }
    }
  } catch {
    // Fall through: not our cursor.
  }
  throw new InvalidCursorError(cursor);
}
