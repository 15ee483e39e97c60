/**
 * JSON for responses, reusing the text of records that cannot change. The store hands out
 * deep-frozen job records (the same object while it is cached), so their JSON is computed once,
 * not once per GET; a response that wraps them (a job list) is assembled from those pieces.
 * The output is byte-for-byte what JSON.stringify gives.
 */
const frozenText = new WeakMap<object, string>();

function frozenJson(value: object): string {
  let text = frozenText.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    frozenText.set(value, text);
  }
  return text;
}

function isFrozenObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

function itemJson(item: unknown): string {
  if (isFrozenObject(item)) return frozenJson(item);
  return JSON.stringify(item) ?? 'null';
}

/** Whether a top-level field is an array with a frozen record in it (checked without allocating: most responses have none). */
function holdsFrozenItems(data: object): boolean {
  for (const key in data) {
    const value: unknown = (data as Record<string, unknown>)[key];
    if (Array.isArray(value) && value.some(isFrozenObject)) return true;
  }
  return false;
}

export function serializeResponse(data: unknown): string {
  if (isFrozenObject(data)) return frozenJson(data);
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.getPrototypeOf(data) === Object.prototype && holdsFrozenItems(data)) {
    const parts: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      if (value === undefined || typeof value === 'function') continue;
      const text = Array.isArray(value) ? `[${value.map(itemJson).join(',')}]` : JSON.stringify(value);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(data);
}
