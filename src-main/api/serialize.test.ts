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
  const record = () => deepFreeze({ job_id: 'a', result: { answer: 'x "quoted" café ✓ 𝄞', n: [1, 2] }, error: null, skipped: undefined });
  const text = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));

  it('gives exactly what JSON.stringify gives, for frozen records, lists of them and anything else', () => {
    const one = record();
    const list = { jobs: [one, record(), { plain: true, u: undefined }], next_cursor: null, extra: undefined, nested: { a: 1 } };
    const leadingUndefined = { skipped: undefined, fn: () => 1, jobs: [record()], after: [] };
    for (const value of [one, list, leadingUndefined, { only: [record()] }, { a: [1, undefined, 'b'] }, [one, 2], 'text', 3, null, { jobs: [] }]) {
      expect(text(serializeResponse(value))).toBe(JSON.stringify(value));
    }
  });

  it('reuses the bytes of a frozen record: what it returns for the same object does not change', () => {
    const one = record();
    const first = serializeResponse(one);
    expect(text(serializeResponse({ jobs: [one], next_cursor: 'c' }))).toBe(`{"jobs":[${text(first)}],"next_cursor":"c"}`);
    expect(serializeResponse(one)).toBe(first);
  });
});
