import { describe, expect, it } from 'vitest';
import { serializeResponse } from './serialize';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe('serializeResponse', () => {
  const record = () => deepFreeze({ job_id: 'a', result: { answer: 'x "quoted"', n: [1, 2] }, error: null, skipped: undefined });

  it('gives exactly what JSON.stringify gives, for frozen records, lists of them and anything else', () => {
    const one = record();
    const list = { jobs: [one, record(), { plain: true, u: undefined }], next_cursor: null, extra: undefined, nested: { a: 1 } };
    for (const value of [one, list, { a: [1, undefined, 'b'] }, [one, 2], 'text', 3, null, { jobs: [] }]) {
      expect(serializeResponse(value)).toBe(JSON.stringify(value));
    }
  });

  it('reuses the text of a frozen record: what it returns for the same object does not change', () => {
    const one = record();
    const first = serializeResponse(one);
    expect(serializeResponse({ jobs: [one], next_cursor: 'c' })).toBe(`{"jobs":[${first}],"next_cursor":"c"}`);
    expect(serializeResponse(one)).toBe(first);
  });
});
