/**
 * JSON for responses, reusing the bytes of records that cannot change. The store hands out
 * deep-frozen job records (the same object while it is cached), so their JSON is computed and
 * UTF-8 encoded once, not once per GET; a response that wraps them (a job list) is assembled
 * from those pieces as one Buffer, which the socket takes without encoding a string again.
 * The output is byte-for-byte the UTF-8 of what JSON.stringify gives.
 */
const frozenBytes = new WeakMap<object, Buffer>();

function frozenJson(value: object): Buffer {
  let bytes = frozenBytes.get(value);
  if (bytes === undefined) {
    // Its own memory, not a slice of node's shared 8 KiB pool: a cached record would keep a whole slab alive.
    const text = JSON.stringify(value);
    bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    bytes.write(text);
    frozenBytes.set(value, bytes);
  }
  return bytes;
}
const COMMA = Buffer.from(',');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_OBJECT = Buffer.from('}');
const EMPTY_OBJECT = Buffer.from('{}');

function isFrozenObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

function itemJson(item: unknown): Buffer {
  if (isFrozenObject(item)) return frozenJson(item);
  return Buffer.from(JSON.stringify(item) ?? 'null');
}

/** Whether a top-level field is an array with a frozen record in it (checked without allocating: most responses have none). */
function holdsFrozenItems(data: object): boolean {
  for (const key in data) {
    const value: unknown = (data as Record<string, unknown>)[key];
    if (Array.isArray(value) && value.some(isFrozenObject)) return true;
  }
  return false;
}

export function serializeResponse(data: unknown): string | Buffer {
  if (isFrozenObject(data)) return frozenJson(data);
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.getPrototypeOf(data) === Object.prototype && holdsFrozenItems(data)) {
    const pieces: Buffer[] = [];
    let first = true;
    for (const [key, value] of Object.entries(data)) {
      if (value === undefined || typeof value === 'function') continue;
      const prefix = `${first ? '{' : ','}${JSON.stringify(key)}:`;
      if (Array.isArray(value)) {
        pieces.push(Buffer.from(`${prefix}[`));
        value.forEach((item: unknown, i) => {
          if (i > 0) pieces.push(COMMA);
          pieces.push(itemJson(item));
        });
        pieces.push(CLOSE_ARRAY);
      } else {
        const text = JSON.stringify(value);
        if (text === undefined) continue;
        pieces.push(Buffer.from(prefix + text));
      }
      first = false;
    }
    pieces.push(first ? EMPTY_OBJECT : CLOSE_OBJECT);
    return Buffer.concat(pieces);
  }
  return JSON.stringify(data);
}
